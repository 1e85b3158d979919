// `open-oc log monitor` run as a person runs it (the repository's oc, spawned), offline against a directory of tiles laid
// out as the URL paths: a first run and a growth print one OK line and save the state; a fork and a rollback one
// FAILED line, exit 1, the contradicting checkpoint kept; mistakes one line and exit 2; an unreachable fleet one
// line and exit 1; without --once it follows the log as it grows.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { verifierKey } from "../../shared/tlog/note";
import { background, freePort, until } from "../helpers/child-processes";
import {
  type AuditKey,
  auditJwks,
  auditKey,
  type Cosigner,
  cosigner,
  envelopeEntries,
  FLEET,
  LEGACY_ORIGIN,
  LOG_ORIGIN,
  type LogOptions,
  logPieces,
  PROJECT,
  signedCheckpoint,
} from "../helpers/monitor-log";
import { oc } from "../helpers/oc-cli";

const ROOT = path.join(import.meta.dirname, "../..");
const tmp = mkdtempSync(path.join(tmpdir(), "oc-log-monitor-"));
let key: AuditKey;
let entries: Uint8Array[];

beforeAll(async () => {
  key = auditKey();
  entries = await envelopeEntries(20);
}, 60_000);

let dirs = 0;
/**
 * A directory holding the log of `logged` as a mirror of its prefix (a fresh one unless named). The checkpoint comes
 * last and whole (a rename), as a mirror should update it: a monitor reading meanwhile sees the old log or the new.
 */
function mirror(
  logged: readonly Uint8Array[],
  dir = path.join(tmp, `log-${++dirs}`),
  options: Omit<LogOptions, "key"> = {},
): string {
  for (const [piece, bytes] of logPieces(logged, { key, ...options })) {
    const file = path.join(dir, piece);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, bytes);
    renameSync(`${file}.tmp`, file);
  }
  return dir;
}

const stateFile = () => path.join(tmp, `state-${++dirs}`, "monitor.json");
const monitor = (dir: string, state: string, ...more: string[]) =>
  oc("log", "monitor", "--project", PROJECT, "--fleet", FLEET, "--dir", dir, "--state", state, "--once", ...more);
const withKey = (dir: string, state: string) => monitor(dir, state, "--key", key.verifier);

/** One human line on stderr, no stack. */
function expectOneLine(stderr: string) {
  expect(stderr.trim().split("\n"), stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
}

describe("open-oc log monitor --dir", { timeout: 60_000 }, () => {
  it("--help prints the usage, exit 0; open-oc --help names it", async () => {
    for (const args of [
      ["log", "--help"],
      ["log", "monitor", "--help"],
    ]) {
      const { code, stdout } = await oc(...args);
      expect(code).toBe(0);
      expect(stdout).toContain("open-oc log monitor --project");
    }
    expect((await oc("--help")).stdout).toContain("open-oc log monitor --project");
  });

  it("a first run verifies the log and saves the state; a later run verifies the new entries only", async () => {
    const state = stateFile();
    const first = await withKey(mirror(entries.slice(0, 10)), state);
    expect(first, first.stderr).toMatchObject({
      code: 0,
      stdout: `OK: ${PROJECT} at size 10 (10 new entries verified)\n`,
    });
    expect(JSON.parse(readFileSync(state, "utf8"))).toMatchObject({ size: 10 });
    const later = await withKey(mirror(entries.slice(0, 15)), state);
    expect(later).toMatchObject({ code: 0, stdout: `OK: ${PROJECT} at size 15 (5 new entries verified)\n` });
    const same = await withKey(mirror(entries.slice(0, 15)), state);
    expect(same).toMatchObject({ code: 0, stdout: `OK: ${PROJECT} at size 15 (0 new entries verified)\n` });
  });

  it("the audit key from a JWKS file; a JWKS without an audit key is a mistake", async () => {
    const jwks = path.join(tmp, "jwks.json");
    writeFileSync(jwks, JSON.stringify(auditJwks(key)));
    const ok = await monitor(mirror(entries.slice(0, 3)), stateFile(), "--jwks", jwks);
    expect(ok).toMatchObject({ code: 0, stdout: `OK: ${PROJECT} at size 3 (3 new entries verified)\n` });
    writeFileSync(jwks, JSON.stringify(auditJwks(key, "session")));
    const session = await monitor(mirror(entries.slice(0, 3)), stateFile(), "--jwks", jwks);
    expect(session.code).toBe(2);
    expectOneLine(session.stderr);
    expect(session.stderr).toContain('holds no Ed25519 key marked oc_use "audit"');
  });

  it("fork: exit 1, one line naming both roots, the checkpoint kept, the state unchanged", async () => {
    const state = stateFile();
    expect((await withKey(mirror(entries.slice(0, 5)), state)).code).toBe(0);
    const saved = readFileSync(state, "utf8");
    const other = [...entries.slice(0, 4), entries[12] as Uint8Array];
    const fork = await withKey(mirror(other), state);
    expect(fork.code).toBe(1);
    expectOneLine(fork.stderr);
    const { root } = JSON.parse(saved) as { root: string };
    expect(fork.stderr).toMatch(
      new RegExp(
        `^FAILED \\(fork\\): at size 5 the saved root ${root.replace(/[+/]/g, "\\$&")} and the checkpoint's root \\S+ differ; the checkpoint is kept in `,
      ),
    );
    const kept = path.join(path.dirname(state), "monitor.fork.txt");
    expect(readFileSync(kept, "utf8")).toBe(signedCheckpoint(other, { key }));
    expect(readFileSync(state, "utf8")).toBe(saved);
  });

  it("rollback: exit 1, one line", async () => {
    const state = stateFile();
    expect((await withKey(mirror(entries.slice(0, 8)), state)).code).toBe(0);
    const rollback = await withKey(mirror(entries.slice(0, 6)), state);
    expect(rollback.code).toBe(1);
    expectOneLine(rollback.stderr);
    expect(rollback.stderr).toContain("FAILED (rollback): the checkpoint's size 6 is below the saved 8");
  });

  it("a checkpoint of another key: exit 1, checkpoint_unsigned", async () => {
    const other = auditKey();
    const result = await monitor(mirror(entries.slice(0, 3)), stateFile(), "--key", other.verifier);
    expect(result.code).toBe(1);
    expectOneLine(result.stderr);
    expect(result.stderr).toMatch(/^FAILED \(checkpoint_unsigned\): /);
  });

  it("mistakes: one line, exit 2", async () => {
    const dir = mirror(entries.slice(0, 2));
    const state = stateFile();
    const cases: [string[], string][] = [
      [["log"], "the command is open-oc log monitor"],
      [["log", "monitor", "--fleet", FLEET, "--dir", dir, "--key", key.verifier], "--project"],
      [["log", "monitor", "--project", "proj_x", "--fleet", FLEET, "--dir", dir, "--key", key.verifier], "proj_x"],
      [["log", "monitor", "--project", PROJECT, "--fleet", FLEET, "--dir", dir], "--key <verifier key>"],
      [
        [
          "log",
          "monitor",
          "--project",
          PROJECT,
          "--fleet",
          "https://other.example",
          "--dir",
          dir,
          "--key",
          key.verifier,
        ],
        "not the log other.example/api/log/",
      ],
      [
        [
          "log",
          "monitor",
          "--project",
          PROJECT,
          "--fleet",
          FLEET,
          "--dir",
          path.join(tmp, "none"),
          "--key",
          key.verifier,
        ],
        "is not a directory",
      ],
      [["log", "monitor", "--bogus"], "bogus"],
    ];
    for (const [args, says] of cases) {
      const result = await oc(...args);
      expect(result.code, args.join(" ")).toBe(2);
      expectOneLine(result.stderr);
      expect(result.stderr).toContain(says);
    }
    mkdirSync(path.dirname(state), { recursive: true });
    writeFileSync(state, "{}");
    const broken = await withKey(dir, state);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("is not a monitor's state");
  });

  it("a public log over HTTP needs no --token: the monitor reads it anonymously", async () => {
    const port = await freePort();
    const fleet = `http://127.0.0.1:${port}`;
    const hostKey = auditKey(`127.0.0.1:${port}/api/log/${PROJECT}`);
    const pieces = logPieces(entries.slice(0, 6), { key: hostKey, origin: `127.0.0.1:${port}/api/log/${PROJECT}` });
    const prefix = `/api/log/${PROJECT}/`;
    const credentials: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      credentials.push(req.headers.authorization ?? req.headers.cookie);
      const piece = req.url?.startsWith(prefix) ? pieces.get(req.url.slice(prefix.length)) : undefined;
      res.writeHead(piece ? 200 : 404).end(piece);
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    try {
      const args = ["--project", PROJECT, "--fleet", fleet, "--key", hostKey.verifier, "--state", stateFile()];
      const result = await oc("log", "monitor", ...args, "--once");
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("at size 6");
      expect(credentials.length).toBeGreaterThan(1);
      expect(credentials.every((c) => c === undefined)).toBe(true);
    } finally {
      server.close();
    }
  });

  it("an unreachable fleet: one line, exit 1", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const args = ["--project", PROJECT, "--fleet", closed, "--key", auditKey(new URL(closed).host).verifier];
    const result = await oc("log", "monitor", ...args, "--token", "ock_x", "--state", stateFile(), "--once");
    expect(result.code).toBe(1);
    expectOneLine(result.stderr);
    expect(result.stderr).toContain(`FAILED (unreachable): could not reach ${closed}`);
  });

  it("without --once it follows the log, a line each time it grows", async () => {
    const dir = mirror(entries.slice(0, 10));
    const state = stateFile();
    const args = ["--project", PROJECT, "--fleet", FLEET, "--key", key.verifier, "--dir", dir, "--state", state];
    const proc = background(process.execPath, ["scripts/oc.mjs", "log", "monitor", ...args, "--interval", "0.2"], {
      cwd: ROOT,
      env: process.env,
    });
    try {
      await until("the first check", () => proc.output().includes("at size 10 (10 new"), proc, 30_000);
      mirror(entries.slice(0, 12), dir);
      await until(
        "the log's growth",
        () => proc.output().includes("at size 12 (2 new entries verified)"),
        proc,
        30_000,
      );
      expect(proc.output().trim().split("\n")).toHaveLength(2);
      expect(existsSync(state)).toBe(true);
    } finally {
      await proc.stop();
    }
  });
});

describe("open-oc log monitor with witnesses, and across the log's rename", { timeout: 60_000 }, () => {
  const [w1, w2, w3] = [cosigner("witness.example/w1"), cosigner("witness.example/w2"), cosigner("w3.example")] as [
    Cosigner,
    Cosigner,
    Cosigner,
  ];
  const witnessFlags = ["--witness", w1.vkey, "--witness", w2.vkey, "--witness", w3.vkey];
  const cosigned = (...by: Cosigner[]) => mirror(entries.slice(0, 5), undefined, { cosigners: by });

  it("--witness ×3 --witness-threshold 2: two cosignatures verify, one is witness_policy_unmet (one line, exit 1)", async () => {
    const ok = await monitor(
      cosigned(w1, w3),
      stateFile(),
      "--key",
      key.verifier,
      ...witnessFlags,
      "--witness-threshold",
      "2",
    );
    expect(ok, ok.stderr).toMatchObject({
      code: 0,
      stdout: `OK: ${PROJECT} at size 5 (5 new entries verified; cosigned by 2 of 3 witnesses (${w1.name}, ${w3.name}))\n`,
    });
    const state = stateFile();
    const below = await monitor(
      cosigned(w2),
      state,
      "--key",
      key.verifier,
      ...witnessFlags,
      "--witness-threshold",
      "2",
    );
    expect(below.code).toBe(1);
    expectOneLine(below.stderr);
    expect(below.stderr).toMatch(/^FAILED \(witness_policy_unmet\): 1 of the 3 witnesses listed cosigned/);
    expect(existsSync(state)).toBe(false);
    // Without a threshold, every witness listed must cosign.
    expect((await monitor(cosigned(w1, w3), stateFile(), "--key", key.verifier, ...witnessFlags)).code).toBe(1);
  });

  it("--witness-file: one vkey a line, comments and blank lines skipped", async () => {
    const file = path.join(tmp, `witnesses-${++dirs}.txt`);
    writeFileSync(file, `# our witnesses\n${w1.vkey}\n\n${w2.vkey}  # the second\n`);
    const ok = await monitor(cosigned(w1, w2), stateFile(), "--key", key.verifier, "--witness-file", file);
    expect(ok, ok.stderr).toMatchObject({ code: 0 });
    expect(ok.stdout).toContain("cosigned by 2 of 2 witnesses");
  });

  it("witness mistakes: one line, exit 2", async () => {
    const dir = cosigned(w1);
    const cases: [string[], string][] = [
      [["--witness", "nope"], "is not a witness vkey"],
      [["--witness", key.verifier], "is not a witness vkey"],
      [[...witnessFlags, "--witness-threshold", "4"], "the threshold 4 is not between 1 and the 3 witnesses"],
      [[...witnessFlags, "--witness-threshold", "two"], "is not between 1 and the 3"],
      [["--witness-threshold", "1"], "--witness-threshold needs --witness"],
      [["--witness-file", path.join(tmp, "none.txt")], "no such file"],
    ];
    for (const [args, says] of cases) {
      const result = await monitor(dir, stateFile(), "--key", key.verifier, ...args);
      expect(result.code, args.join(" ")).toBe(2);
      expectOneLine(result.stderr);
      expect(result.stderr).toContain(says);
    }
  });

  it("a state saved under the old name (<host>/log/<project>, signed as the host) moves to the new one", async () => {
    const state = stateFile();
    // A verifier key named for the host (what GET /api/log/key answered before) is the same audit key.
    const hostKey = verifierKey({ name: new URL(FLEET).host, publicKey: key.publicKey });
    const old = await monitor(mirror(entries.slice(0, 8), undefined, { legacy: true }), state, "--key", hostKey);
    expect(old, old.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(readFileSync(state, "utf8"))).toMatchObject({ origin: LEGACY_ORIGIN, size: 8 });
    const moved = await withKey(mirror(entries.slice(0, 12)), state);
    expect(moved).toMatchObject({ code: 0, stdout: `OK: ${PROJECT} at size 12 (4 new entries verified)\n` });
    expect(JSON.parse(readFileSync(state, "utf8"))).toMatchObject({ origin: LOG_ORIGIN, size: 12 });
  });
});
