// `open-oc restore` run as an operator runs it (spawned Node processes, no stack): --help; one-line failures for a missing
// flag, a tampered bundle and a checkpoint of another project; the SQL file it writes and the log root it proves;
// and --apply against a local D1 (wrangler's own `d1 execute --local`, migrations applied first), read back with
// wrangler: the bytes, the statuses and the leaves are the log's. The drill against the fleet itself, export to
// compare, is test/fleet/restore-drill.test.ts.
import { execFile } from "node:child_process";
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { base64 } from "@scure/base";
import { afterAll, describe, expect, it } from "vitest";
import {
  BUNDLE_FORMAT,
  bundleHead,
  bundleRow,
  bundleTail,
  type EnvelopeKind,
  type Manifest,
  manifestBytes,
  REPLAY_ORDER,
} from "../../shared/audit/bundle-format";
import { sha256Hex, utf8 } from "../../shared/crypto/digest";
import { checkpointText } from "../../shared/tlog/checkpoint";
import { leafHash, rootOf } from "../../shared/tlog/merkle";
import { signNote } from "../../shared/tlog/note";
import { action, delegation, keptOutcome, pledge, revocation, subdelegation } from "../helpers/envelopes";
import { oc } from "../helpers/oc-cli";
import { newWallet } from "../helpers/wallet";

const ROOT = path.join(import.meta.dirname, "../..");
const run = promisify(execFile);
const tmp = mkdtempSync(path.join(tmpdir(), "oc-restore-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const FLEET = "https://fleet.example";
const PROJECT = "proj_0123456789abcdef01234567";

const file = (name: string, text: string) => {
  writeFileSync(path.join(tmp, name), text);
  return path.join(tmp, name);
};

/** A project's log as the fleet would hold it: entries in registration order, the bytes as received. */
async function projectLog() {
  const [principal, agent, subagent, counterparty] = [newWallet(), newWallet("p2tr"), newWallet(), newWallet()];
  const grant = await delegation(principal, agent);
  const below = await subdelegation(grant.id, agent, subagent);
  const sworn = await pledge(principal, counterparty);
  const entries: { kind: EnvelopeKind; id: string; body: string }[] = [];
  const add = (kind: EnvelopeKind, built: { id: string; envelope: unknown }, pretty = false) =>
    entries.push({ kind, id: built.id, body: JSON.stringify(built.envelope, null, pretty ? 2 : undefined) });
  add("delegation", grant, true); // pretty-printed, as a client may send it: line breaks inside the stored bytes
  add("subdelegation", below);
  add("action", await action(below.id, subagent));
  // A reason SQL text must carry intact: a quote, a statement end, a comment and the words wrangler strips.
  add("revocation", await revocation(grant.id, principal, "it's over; -- BEGIN TRANSACTION"));
  add("pledge", sworn);
  add("outcome", await keptOutcome(sworn.id, counterparty));
  return { principal, grant, below, sworn, entries };
}

/** The CSV bundle the export would serve for `entries` (grouped by kind), its manifest signed by `key`. */
async function csvBundle(
  projectId: string,
  entries: { kind: EnvelopeKind; id: string; body: string }[],
  key: KeyObject,
) {
  const grouped = REPLAY_ORDER.flatMap((kind) => entries.filter((e) => e.kind === kind));
  const body = bundleHead("csv", projectId) + grouped.map((e, i) => bundleRow("csv", e, i === 0)).join("");
  const counts = Object.fromEntries(REPLAY_ORDER.map((k) => [k, grouped.filter((e) => e.kind === k).length]));
  const manifest: Manifest = {
    format: BUNDLE_FORMAT,
    bundle_id: "bnd_0123456789abcdef01234567",
    project_id: projectId,
    generated_at: "2026-06-01T00:00:00Z",
    export_format: "csv",
    counts: counts as Manifest["counts"],
    total: grouped.length,
    sha256: await sha256Hex(body),
    kid: "restore-test",
    alg: "EdDSA",
  };
  return body + bundleTail("csv", manifest, sign(null, manifestBytes(manifest), key).toString("base64url"));
}

async function fixture() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d ?? "", "base64url");
  const log = await projectLog();
  const root = rootOf(log.entries.map((e) => leafHash(utf8(e.body))));
  const checkpoint = (origin: string) =>
    signNote(checkpointText({ origin, size: log.entries.length, root, extensions: [] }), "fleet.example", seed);
  const bundle = await csvBundle(PROJECT, log.entries, privateKey);
  const audit = { ...publicKey.export({ format: "jwk" }), kid: "restore-test", alg: "EdDSA", oc_use: "audit" };
  const files = {
    bundle: file("bundle.csv", bundle),
    tampered: file("tampered.csv", bundle.replace("it's over", "it's fine")),
    leaves: file("leaves.json", JSON.stringify({ size: log.entries.length, ids: log.entries.map((e) => e.id) })),
    checkpoint: file("checkpoint.txt", checkpoint(`fleet.example/log/${PROJECT}`)),
    otherCheckpoint: file("other.txt", checkpoint("fleet.example/log/proj_ffffffffffffffffffffffff")),
    jwks: file("jwks.json", JSON.stringify({ keys: [audit] })),
  };
  const flags = (bundleFile = files.bundle, checkpointFile = files.checkpoint) => [
    ...["restore", bundleFile, "--jwks", files.jwks, "--leaves", files.leaves, "--checkpoint", checkpointFile],
    ...["--fleet", FLEET, "--name", "Restored project", "--owner", log.principal.address],
  ];
  return { log, root: base64.encode(root), files, flags };
}

/** One line on stderr, and nothing that is not it. */
const oneLine = (stderr: string) => stderr.trim().split("\n");

describe("open-oc restore", () => {
  it("answers --help, and refuses in one line: a missing flag, a tampered bundle, another project's checkpoint", async () => {
    const { files, flags } = await fixture();
    const help = await oc("restore", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("open-oc restore <bundle.csv | bundle.json> --leaves");
    const missing = await oc(...flags().slice(0, -2));
    expect([missing.code, oneLine(missing.stderr)]).toEqual([2, [expect.stringContaining("--owner is required")]]);
    const tampered = await oc(...flags(files.tampered));
    expect([tampered.code, oneLine(tampered.stderr)]).toEqual([
      1,
      [expect.stringContaining("FAILED (digest_mismatch)")],
    ]);
    const otherLog = await oc(...flags(files.bundle, files.otherCheckpoint));
    expect([otherLog.code, oneLine(otherLog.stderr)]).toEqual([
      1,
      [expect.stringContaining("FAILED (checkpoint_wrong_log)")],
    ]);
    const remoteOrLocal = await oc(...flags(), "--apply");
    expect([remoteOrLocal.code, oneLine(remoteOrLocal.stderr)]).toEqual([
      2,
      [expect.stringContaining("--apply needs --local or --remote")],
    ]);
  }, 120_000);

  it("writes the SQL file and prints the root it proves, then --apply --local rebuilds the log in D1", async () => {
    const { log, root, flags } = await fixture();
    const out = path.join(tmp, "restore.sql");
    const written = await oc(...flags(), "--out", out);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toContain(`give ${root}, the root of the checkpoint of fleet.example/log/${PROJECT}`);
    const sql = readFileSync(out, "utf8");
    expect(sql.match(/^INSERT INTO envelopes /gm)).toHaveLength(log.entries.length);
    // Each envelope's row is its leaf: its index and the hash the log committed to (no table of leaves apart).
    expect(sql).toMatch(/^INSERT INTO envelopes \(.*\bleaf_hash, leaf_idx\)/m);
    expect(sql).not.toContain("BEGIN TRANSACTION");

    // A local D1 as `wrangler dev` keeps it: the migrations, then the restore through wrangler itself.
    const state = path.join(tmp, "d1-state");
    const config = path.join(ROOT, "wrangler.toml");
    const local = ["--local", "--persist-to", state, "--config", config];
    await run("npx", ["wrangler", "d1", "migrations", "apply", "oc-db", ...local], { cwd: ROOT });
    const applied = await oc(...flags(), "--out", out, "--apply", ...local);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`applied ${out} to oc-db (local)`);
    const query = async <T>(command: string) => {
      const { stdout } = await run(
        "npx",
        ["wrangler", "d1", "execute", "oc-db", ...local, "--json", "--command", command],
        {
          cwd: ROOT,
        },
      );
      return (JSON.parse(stdout) as { results: T[] }[])[0]?.results ?? [];
    };
    const rows = await query<{ id: string; body: string; status: string | null; event_id: string | null }>(
      `SELECT id, body, status, event_id FROM envelopes WHERE project_id = '${PROJECT}' ORDER BY seq`,
    );
    expect(rows.map((r) => [r.id, r.body])).toEqual(log.entries.map((e) => [e.id, e.body]));
    const statuses = Object.fromEntries(rows.map((r) => [r.id, r.status]));
    expect(statuses).toMatchObject({ [log.grant.id]: "revoked", [log.below.id]: "revoked", [log.sworn.id]: "kept" });
    expect(rows.every((r) => r.event_id === null)).toBe(true);
    const leaves = await query<{ hash: string }>(
      `SELECT leaf_hash AS hash FROM envelopes WHERE project_id = '${PROJECT}' ORDER BY leaf_idx`,
    );
    expect(base64.encode(rootOf(leaves.map((l) => Buffer.from(l.hash, "hex"))))).toBe(root);
    const owners = await query<{ address: string; role: string }>(
      `SELECT address, role FROM members WHERE project_id = '${PROJECT}'`,
    );
    expect(owners).toEqual([{ address: log.principal.address, role: "owner" }]);
    expect(await query(`SELECT id FROM outbox WHERE project_id = '${PROJECT}'`)).toEqual([]);

    // Applied twice, the file is refused as a whole: wrangler's error in one line, nothing written twice.
    const twice = await oc(...flags(), "--out", out, "--apply", ...local);
    expect([twice.code, oneLine(twice.stderr)]).toEqual([1, [expect.stringMatching(/FAILED \(apply\).*UNIQUE/)]]);
    expect(await query(`SELECT id FROM envelopes WHERE project_id = '${PROJECT}'`)).toHaveLength(log.entries.length);
  }, 240_000);
});
