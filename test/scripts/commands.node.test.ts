// Every command a person runs (issue 15, the command line): `--help` prints usage and exits 0; an unreachable host,
// a missing flag or a busy port prints one line (what failed, why, what to do) and exits non-zero, never a stack trace.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.join(import.meta.dirname, "../..");
const SCRIPTS = [
  "signin",
  "fleet",
  "billing",
  "attest",
  "receiver",
  "oidc",
  "fakes",
  "demo",
  "verify-bundle",
  "oc",
  "keys",
];
const OC_COMMANDS = [
  "key",
  "delegate",
  "subdelegate",
  "act",
  "revoke",
  "pledge",
  "outcome",
  "abandon",
  "register",
  "bundle",
  "restore",
  "log",
];

function run(script: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [path.join(ROOT, "scripts", `${script}.mjs`), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** One human line on stderr: no stack frames, no Node internals. */
function expectOneLine(err: string) {
  const lines = err.trim().split("\n");
  expect(lines, err).toHaveLength(1);
  expect(err).not.toMatch(/^\s+at /m);
  expect(err).not.toContain("node:internal");
}

let closed: string; // a loopback origin nothing listens on
let busy: Server;
let busyPort: number;
let dir: string;

beforeAll(async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closed = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
  await new Promise((resolve) => probe.close(resolve));
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  busyPort = (busy.address() as { port: number }).port;
  dir = mkdtempSync(path.join(tmpdir(), "oc-cli-"));
  writeFileSync(path.join(dir, "cookie.txt"), "x");
});

afterAll(() => new Promise((resolve) => busy.close(resolve)));

describe("--help", () => {
  for (const script of SCRIPTS) {
    it(`npm run ${script} -- --help prints its usage and exits 0`, () => {
      const { code, out, err } = run(script, ["--help"]);
      expect(code, err).toBe(0);
      expect(out.trim().length).toBeGreaterThan(20);
    });
  }
  for (const command of OC_COMMANDS) {
    it(`oc ${command} --help exits 0`, () => {
      const { code, out } = run("oc", [command, "--help"]);
      expect(code).toBe(0);
      expect(out).toContain(`oc ${command}`);
    });
  }
});

describe("an unreachable host is one line and a non-zero exit", () => {
  const cases: [string, (origin: string) => string[], Record<string, string>?][] = [
    ["signin", (o) => ["--base", o, "--me"]],
    ["fleet", (o) => ["deliveries", "--project", "proj_000000000000000000000000", "--base", o]],
    [
      "billing",
      (o) => ["show", "--project", "proj_000000000000000000000000", "--base", o, "--jar", path.join(dir, "cookie.txt")],
    ],
    ["attest", (o) => ["--base", o]],
  ];
  for (const [script, args] of cases) {
    it(script, () => {
      const { code, err } = run(script, args(closed));
      expect(code).not.toBe(0);
      expectOneLine(err);
      expect(err).toContain(`could not reach ${closed}`);
      expect(err).toContain("npm start");
    });
  }

  it("oc delegate --register", () => {
    const key = JSON.parse(run("oc", ["key", "new"]).out);
    const { code, err } = run(
      "oc",
      ["delegate", "--wif", key.wif, "--agent", key.address, "--scope", "stamp:sign(mime=text/markdown)", "--register"],
      { OC_FLEET: closed, OC_TOKEN: `ock_${"a".repeat(64)}`, OC_PROJECT: "proj_000000000000000000000000" },
    );
    expect(code).toBe(1);
    expectOneLine(err);
    expect(err).toContain(`could not reach ${closed}`);
  });
});

describe("usage mistakes and busy ports", () => {
  it("fleet deliveries without --project never sends 'undefined': exit 2 with what to pass", () => {
    const { code, err } = run("fleet", ["deliveries", "--base", closed], { OC_PROJECT: "" });
    expect(code).toBe(2);
    expectOneLine(err);
    expect(err).toContain("--project");
  });

  it("an unknown flag is one line and exit 2", () => {
    const { code, err } = run("signin", ["--bogus"]);
    expect(code).toBe(2);
    expectOneLine(err);
  });

  it("a local server on a busy port says so and exits 1", () => {
    for (const [script, args, env] of [
      ["receiver", ["--port", String(busyPort)], {}],
      ["oidc", [], { OIDC_PORT: String(busyPort) }],
    ] as const) {
      const { code, err } = run(script, [...args], env);
      expect(code, script).toBe(1);
      expectOneLine(err);
      expect(err).toContain(`port ${busyPort} is in use`);
    }
  });

  it("oc key new --out writes the key readable by its owner only", () => {
    const file = path.join(dir, "keys", "agent.json");
    const { code } = run("oc", ["key", "new", "--out", file]);
    expect(code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("npm run keys (key rotation with overlap, issue 18)", () => {
  const privateKey = () => JSON.parse(run("dev-keys", []).out) as { kid: string; x: string };
  const read = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;

  it("rotate session: a new signing key; the old public key retires when its last token has expired", () => {
    const old = privateKey();
    const gone = { ...privateKey(), oc_retire_at: "2020-01-01T00:00:00Z" };
    const out = path.join(dir, "session.json");
    const {
      code,
      out: said,
      err,
    } = run("keys", ["rotate", "session", "--out", out], {
      AUTH_SIGNING_KEY: JSON.stringify(old),
      AUTH_PREVIOUS_KEYS: JSON.stringify([gone]),
    });
    expect(code, err).toBe(0);
    expect(said).toContain(`wrangler secret bulk ${out}`);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const secrets = read(out);
    const next = JSON.parse(secrets.AUTH_SIGNING_KEY ?? "{}") as { kid: string; d?: string };
    expect(next.kid).not.toBe(old.kid);
    expect(next.d).toBeTruthy();
    const previous = JSON.parse(secrets.AUTH_PREVIOUS_KEYS ?? "[]") as Record<string, string>[];
    expect(previous.map((k) => k.kid)).toEqual([old.kid]); // the retired one is dropped
    expect(previous[0]).not.toHaveProperty("d");
    const retireIn = Date.parse(previous[0]?.oc_retire_at ?? "") - Date.now();
    expect(retireIn).toBeGreaterThan(30 * 86_400_000);
    expect(retireIn).toBeLessThan(30 * 86_400_000 + 10 * 60_000);
  });

  it("rotate audit: old and new public keys both published, the new one signs", () => {
    const old = privateKey();
    const out = path.join(dir, "audit.json");
    const {
      code,
      out: said,
      err,
    } = run("keys", ["rotate", "audit", "--out", out], {
      FLEET_SIGNING_KEY: JSON.stringify(old),
      PUBLISHED_KEYS: "[]",
    });
    expect(code, err).toBe(0);
    const next = JSON.parse(read(out).FLEET_SIGNING_KEY ?? "{}") as { kid: string };
    const published = /PUBLISHED_KEYS to (\[.*\]) and deploy/.exec(said)?.[1] ?? "[]";
    expect((JSON.parse(published) as { kid: string; d?: string }[]).map((k) => [k.kid, k.d])).toEqual([
      [old.kid, undefined],
      [next.kid, undefined],
    ]);
  });

  it("a missing or malformed key is one line and exit 2", () => {
    const missing = run("keys", ["rotate", "session"], { AUTH_SIGNING_KEY: "" });
    expect(missing.code).toBe(2);
    expectOneLine(missing.err);
    const bad = run("keys", ["rotate", "session", "--out", path.join(dir, "x.json")], { AUTH_SIGNING_KEY: "{}" });
    expect(bad.code).toBe(2);
    expectOneLine(bad.err);
    const which = run("keys", ["rotate"]);
    expect(which.code).toBe(2);
    expectOneLine(which.err);
  });
});
