// The log scan (issue 28): a setup file of the auth, fleet and verify projects (vitest.config.ts). It records every
// console line written inside the project's workerd isolate while a test file runs: the workers' request and event
// lines, and anything else written there. Test code shares the isolate and cannot be told apart, so its lines are
// scanned too; a test that must show a secret has no reason to print it. After each file, every line is checked for
// a secret-shaped value (secret-shapes.ts), and the file fails if one has any.
import { env } from "cloudflare:test";
import { afterAll } from "vitest";
import { findSecrets, knownSecrets } from "./secret-shapes";

const METHODS = ["log", "info", "warn", "error", "debug"] as const;
// On the global, so a second evaluation of this module in the same isolate wraps nothing twice.
const CAPTURE = Symbol.for("open-oc.log-scan");

interface Capture {
  lines: string[];
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return `${value.name}: ${value.message}\n${value.stack ?? ""}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function install(): Capture {
  const global = globalThis as { [CAPTURE]?: Capture };
  const installed = global[CAPTURE];
  if (installed) return installed;
  const capture: Capture = { lines: [] };
  for (const method of METHODS) {
    const write = console[method];
    console[method] = (...args: unknown[]) => {
      capture.lines.push(args.map(text).join(" "));
      write.apply(console, args);
    };
  }
  global[CAPTURE] = capture;
  return capture;
}

const capture = install();

/** The lines this test file has written so far (a test shows the scan sees the workers' lines). */
export const capturedLines = (): readonly string[] => capture.lines;

afterAll(() => {
  const lines = capture.lines.splice(0);
  const findings = findSecrets(lines, knownSecrets(env));
  if (findings.length === 0) return;
  const report = findings.map((f) => `  ${f.shape}: ${f.line.slice(0, 400)}`).join("\n");
  throw new Error(
    `log scan: ${findings.length} of ${lines.length} console lines hold a secret-shaped value\n${report}`,
  );
});
