// The architecture rules `npm run lint` checks (.dependency-cruiser.cjs, issue 31) hold on this tree, and each one
// catches what it is for: a fixture tree breaks every rule once and each violation is named by its rule.
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = path.join(import.meta.dirname, "../..");
const execute = promisify(execFile);
const DEPCRUISE = path.join(root, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** The rule violations dependency-cruiser reports for `folders` under `cwd`, with the project's configuration. */
async function violations(cwd: string, folders: string[]): Promise<Violation[]> {
  const config = path.join(root, ".dependency-cruiser.cjs");
  const run = await execute(
    process.execPath,
    [DEPCRUISE, "--config", config, "--output-type", "json", "--no-progress", ...folders],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: { stdout: string }) => err);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const fixture = mkdtempSync(path.join(tmpdir(), "architecture-"));
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

function file(relative: string, text: string): void {
  mkdirSync(path.dirname(path.join(fixture, relative)), { recursive: true });
  writeFileSync(path.join(fixture, relative), text);
}

describe("architecture rules", () => {
  it("hold on the workers and the shared library", async () => {
    expect(await violations(root, ["workers", "shared"])).toEqual([]);
  }, 120_000);

  it("name a circle, a worker importing another, a worker importing tests, shared importing a worker, and a page importing server code", async () => {
    copyFileSync(path.join(root, "tsconfig.json"), path.join(fixture, "tsconfig.json"));
    file("shared/a.ts", 'import { b } from "./b";\nexport const a = () => b;\n');
    file("shared/b.ts", 'import { a } from "./a";\nexport const b = () => a;\n');
    file("shared/reaches.ts", 'export { f } from "../workers/fleet/src/f";\n');
    file("shared/db/client.ts", "export const db = 1;\n");
    file("workers/fleet/src/f.ts", "export const f = 1;\n");
    file("workers/fleet/src/crosses.ts", 'export { g } from "../../auth/src/g";\n');
    file("workers/auth/src/g.ts", "export const g = 1;\n");
    file("workers/auth/src/uses-test.ts", 'export { h } from "../../../test/helpers/h";\n');
    file("test/helpers/h.ts", "export const h = 1;\n");
    file("workers/auth/src/pages/signin/page.ts", 'export { db } from "../../../../../shared/db/client";\n');
    file("shared/browser/dom.ts", "export const dom = 1;\n");
    file("workers/auth/src/pages/signin/fine.ts", 'export { dom } from "../../../../../shared/browser/dom";\n');

    const found = (await violations(fixture, ["workers", "shared"])).map((v) => `${v.rule.name} ${v.from} → ${v.to}`);
    expect(found.sort()).toEqual(
      [
        "browser-imports-browser-only workers/auth/src/pages/signin/page.ts → shared/db/client.ts",
        "no-circular shared/a.ts → shared/b.ts",
        "no-worker-to-worker workers/fleet/src/crosses.ts → workers/auth/src/g.ts",
        "shared-imports-no-worker shared/reaches.ts → workers/fleet/src/f.ts",
        "workers-import-shared-only workers/auth/src/uses-test.ts → test/helpers/h.ts",
      ].sort(),
    );
  }, 120_000);
});
