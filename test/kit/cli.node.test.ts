// The `oc` CLI run as a user runs it (spawned Node processes, no stack): key new, delegate printing a signed
// envelope the project's parser and verifier accept (the same id on a re-run with the same fields), an action
// and a pledge, usage errors, and offline audit-bundle verification against a JWKS file — good, tampered, wrong
// key, a session key — also through `npm run verify-bundle`'s script; a CSV bundle against a checkpoint of the
// fleet --fleet names; and `npx open-oc` (alias `oc`) resolving this package's own bin in a clone.
import { execFile } from "node:child_process";
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  BUNDLE_FORMAT,
  bundleHead,
  bundleRow,
  bundleTail,
  type Manifest,
  manifestBytes,
} from "../../shared/audit/bundle-format";
import { sha256Hex } from "../../shared/crypto/digest";
import { parseAgentEnvelope, verifyEnvelopeSignatures } from "../../shared/envelopes/agent";
import { parsePledgeEnvelope, verifyPledgeSignature } from "../../shared/envelopes/pledge";
import { checkpointText } from "../../shared/tlog/checkpoint";
import { leafHash, rootOf } from "../../shared/tlog/merkle";
import { signNote } from "../../shared/tlog/note";
import { type Cosigner, cosignatureOf, cosigner } from "../helpers/monitor-log";
import { oc } from "../helpers/oc-cli";

const ROOT = path.join(import.meta.dirname, "../..");
const run = promisify(execFile);

const tmp = mkdtempSync(path.join(tmpdir(), "oc-cli-"));

/** A bundle of one delegation (its envelope's bytes as given), its manifest signed by `privateKey` under `kid`. */
async function oneDelegationBundle(
  format: "ndjson" | "csv",
  projectId: string,
  kid: string,
  envelope: string,
  privateKey: KeyObject,
): Promise<string> {
  const id = (JSON.parse(envelope) as { id: string }).id;
  const body = bundleHead(format, projectId) + bundleRow(format, { kind: "delegation", id, body: envelope }, true);
  const manifest: Manifest = {
    format: BUNDLE_FORMAT,
    bundle_id: `bnd_${kid}`,
    project_id: projectId,
    generated_at: "2026-06-01T00:00:00Z",
    export_format: format,
    counts: { delegation: 1, subdelegation: 0, revocation: 0, action: 0, pledge: 0, outcome: 0, abandonment: 0 },
    total: 1,
    sha256: await sha256Hex(body),
    kid,
    alg: "EdDSA",
  };
  const signature = sign(null, manifestBytes(manifest), privateKey).toString("base64url");
  return body + bundleTail(format, manifest, signature);
}
const SCOPE = "stamp:sign(mime=text/markdown)";

/** A delegation made by the CLI, its one-envelope bundle signed by a fresh audit key, and its log's root. */
async function loggedDelegation() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const audit = { ...publicKey.export({ format: "jwk" }), kid: "kit-log", oc_use: "audit" };
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d ?? "", "base64url");
  const principal = JSON.parse((await oc("key", "new")).stdout) as { wif: string };
  const agent = JSON.parse((await oc("key", "new")).stdout) as { address: string };
  const envelope = (await oc("delegate", "--wif", principal.wif, "--agent", agent.address, "--scope", SCOPE)).stdout;
  const id = JSON.parse(envelope).id as string;
  const bundle = await oneDelegationBundle("csv", "proj_log", "kit-log", envelope, privateKey);
  const root = rootOf([leafHash(new TextEncoder().encode(envelope))]);
  return { audit, seed, id, bundle, root };
}
describe("oc CLI", () => {
  it("key new, then delegate, act and pledge print envelopes the project's own library accepts", async () => {
    const principal = JSON.parse((await oc("key", "new")).stdout) as { wif: string; address: string };
    expect(principal.address).toMatch(/^bc1q/);
    const agent = JSON.parse((await oc("key", "new", "--type", "p2tr")).stdout) as { wif: string; address: string };
    expect(agent.address).toMatch(/^bc1p/);
    expect(JSON.parse((await oc("key", "show", "--wif", agent.wif, "--type", "p2tr")).stdout).address).toBe(
      agent.address,
    );
    const fixed = [
      "--issued-at",
      "2026-06-01T00:00:00Z",
      "--expires-at",
      "2026-06-02T00:00:00Z",
      "--nonce",
      "0123456789abcdef0123456789abcdef",
    ];
    const delegate = await oc("delegate", "--wif", principal.wif, "--agent", agent.address, "--scope", SCOPE, ...fixed);
    expect(delegate.code).toBe(0);
    const envelope = JSON.parse(delegate.stdout);
    const parsed = await parseAgentEnvelope("delegation", envelope);
    expect(parsed.ok && verifyEnvelopeSignatures(parsed).ok).toBe(true);
    expect(envelope).toMatchObject({ principal: { address: principal.address }, agent: { address: agent.address } });
    const again = JSON.parse(
      (await oc("delegate", "--wif", principal.wif, "--agent", agent.address, "--scope", SCOPE, ...fixed)).stdout,
    );
    expect(again.id).toBe(envelope.id);

    const act = await oc(
      "act",
      ...["--wif", agent.wif, "--type", "p2tr", "--delegation", envelope.id, "--scope", SCOPE, "--content", "# hi"],
    );
    const action = await parseAgentEnvelope("action", JSON.parse(act.stdout));
    expect(action.ok && verifyEnvelopeSignatures(action).ok).toBe(true);
    expect(JSON.parse(act.stdout).content).toMatchObject({ hash: `sha256:${await sha256Hex("# hi")}`, length: 4 });

    const pledge = await oc(
      "pledge",
      ...["--wif", principal.wif, "--proposition", "I will ship.", "--mechanism", "chain_state"],
      ...["--query", `address(${principal.address}).utxo_count >= 1`, "--resolves-block", "930000"],
      ...["--hours", "48", "--bond-attestation", "1".repeat(64), "--bond-sats", "100000", "--bond-days", "30"],
    );
    expect(pledge.code, pledge.stderr).toBe(0);
    const parsedPledge = await parsePledgeEnvelope(JSON.parse(pledge.stdout));
    expect(parsedPledge.ok && verifyPledgeSignature(parsedPledge).ok).toBe(true);
  }, 60_000);

  it("answers usage errors with exit 2 in one line; --help has the usage", async () => {
    const missing = await oc("delegate", "--wif", "x");
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe("open-oc: --agent is required (open-oc --help for usage)");
    const unknown = await oc("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1);
    expect((await oc("--help")).stdout).toContain("open-oc bundle verify");
    const badWif = await oc("revoke", "--wif", "nope", "--delegation", "a".repeat(64));
    expect(badWif.code).toBe(1);
  }, 30_000);

  it("bundle verify: OK for a signed bundle, FAILED with the reason for a tampered one or another key", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    // As the auth host publishes the fleet's key: marked for audit (only such a key may sign a bundle).
    const jwk = { ...publicKey.export({ format: "jwk" }), kid: "kit-test", alg: "EdDSA", use: "sig", oc_use: "audit" };
    const principal = JSON.parse((await oc("key", "new")).stdout) as { wif: string };
    const agent = JSON.parse((await oc("key", "new")).stdout) as { address: string };
    const envelope = JSON.parse(
      (await oc("delegate", "--wif", principal.wif, "--agent", agent.address, "--scope", SCOPE)).stdout,
    );
    const bundle = await oneDelegationBundle("ndjson", "proj_kit", "kit-test", JSON.stringify(envelope), privateKey);
    const files = {
      bundle: path.join(tmp, "bundle.ndjson"),
      tampered: path.join(tmp, "tampered.ndjson"),
      jwks: path.join(tmp, "jwks.json"),
      other: path.join(tmp, "other-jwks.json"),
      session: path.join(tmp, "session-jwks.json"),
    };
    writeFileSync(files.bundle, bundle);
    writeFileSync(files.tampered, bundle.replace(envelope.nonce, "f".repeat(32)));
    writeFileSync(files.jwks, JSON.stringify({ keys: [jwk] }));
    const otherKey = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" });
    writeFileSync(files.other, JSON.stringify({ keys: [{ ...otherKey, kid: "kit-test", oc_use: "audit" }] }));
    writeFileSync(files.session, JSON.stringify({ keys: [{ ...jwk, oc_use: "session" }] }));

    const ok = await oc("bundle", "verify", files.bundle, "--jwks", files.jwks);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("OK: bundle bnd_kit-test of proj_kit");
    const tampered = await oc("bundle", "verify", files.tampered, "--jwks", files.jwks);
    expect([tampered.code, tampered.stderr]).toEqual([1, expect.stringContaining("FAILED (digest_mismatch)")]);
    const otherJwks = await oc("bundle", "verify", files.bundle, "--jwks", files.other);
    expect([otherJwks.code, otherJwks.stderr]).toEqual([1, expect.stringContaining("FAILED (bad_signature)")]);
    // The same key published as a session key vouches for no bundle (issue 26).
    const sessionJwks = await oc("bundle", "verify", files.bundle, "--jwks", files.session);
    expect([sessionJwks.code, sessionJwks.stderr]).toEqual([1, expect.stringContaining("FAILED (wrong_key_use)")]);
    // Checkpoints are checked against a fleet the person names: without --fleet (or $OC_FLEET), a usage error.
    const noFleet = await oc(
      ...["bundle", "verify", files.bundle, "--jwks", files.jwks, "--checkpoint", files.bundle, "--leaves", files.jwks],
    );
    expect([noFleet.code, noFleet.stderr]).toEqual([2, expect.stringContaining("--checkpoint needs --fleet")]);
    // The README walk-through's script is the same check.
    const script = await run(process.execPath, ["scripts/verify-bundle.mjs", files.bundle, "--jwks", files.jwks], {
      cwd: ROOT,
    });
    expect(script.stdout).toContain("1 envelopes re-verified");
  }, 60_000);

  it("bundle verify --checkpoint: the checkpoint must be the bundle's project's log on the fleet --fleet names", async () => {
    const { audit, seed, id, bundle, root } = await loggedDelegation();
    const note = (origin: string, name = "fleet.example") =>
      signNote(checkpointText({ origin, size: 1, root, extensions: [] }), name, seed);
    const file = (name: string, text: string) => {
      writeFileSync(path.join(tmp, name), text);
      return path.join(tmp, name);
    };
    const flags = [
      file("log-bundle.csv", bundle),
      ...["--jwks", file("log-jwks.json", JSON.stringify({ keys: [audit] }))],
      ...["--leaves", file("log-leaves.json", JSON.stringify({ size: 1, ids: [id] }))],
    ];
    const verify = (checkpoint: string, fleet: string) =>
      oc("bundle", "verify", ...flags, "--checkpoint", file("log-note.txt", checkpoint), "--fleet", fleet);
    const ok = await verify(note("fleet.example/log/proj_log"), "https://fleet.example");
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("matches 1 signed checkpoint(s) of sizes 1");
    for (const [checkpoint, fleet] of [
      [note("fleet.example/log/proj_log"), "https://fleet.other.example"], // another fleet named
      [note("fleet.example/log/proj_other"), "https://fleet.example"], // another project's log
      [note("fleet.example/log/proj_log", "fleet.other.example"), "https://fleet.example"], // another host's key name
    ] as const) {
      const refused = await verify(checkpoint, fleet);
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("FAILED (checkpoint_wrong_log)")]);
    }
  }, 60_000);

  it("bundle verify --checkpoint: the log's new name, and --witness with a threshold (issue 48)", async () => {
    const { audit, seed, id, bundle, root } = await loggedDelegation();
    const origin = "fleet.example/api/log/proj_log";
    const text = checkpointText({ origin, size: 1, root, extensions: [] });
    const [w1, w2] = [cosigner("witness.example/w1"), cosigner("witness.example/w2")] as [Cosigner, Cosigner];
    const file = (name: string, content: string) => {
      writeFileSync(path.join(tmp, name), content);
      return path.join(tmp, name);
    };
    const flags = [
      file("w-bundle.csv", bundle),
      ...["--jwks", file("w-jwks.json", JSON.stringify({ keys: [audit] }))],
      ...["--leaves", file("w-leaves.json", JSON.stringify({ size: 1, ids: [id] }))],
      ...["--fleet", "https://fleet.example"],
    ];
    const verify = (note: string, ...more: string[]) =>
      oc("bundle", "verify", ...flags, "--checkpoint", file("w-note.txt", note), ...more);
    const note = signNote(text, origin, seed);
    const plain = await verify(note);
    expect(plain.code, plain.stderr).toBe(0);
    const witnesses = ["--witness", w1.vkey, "--witness", w2.vkey];
    const both = await verify(note + cosignatureOf(w1, text) + cosignatureOf(w2, text), ...witnesses);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toContain("each cosigned by at least 2 of the 2 witnesses given");
    const one = await verify(note + cosignatureOf(w2, text), ...witnesses, "--witness-threshold", "1");
    expect(one.code, one.stderr).toBe(0);
    const below = await verify(note + cosignatureOf(w2, text), ...witnesses);
    expect([below.code, below.stderr]).toEqual([1, expect.stringMatching(/^FAILED \(witness_policy_unmet\): /)]);
    // The new origin signed under the host's name mixes the two forms: another log.
    const mixed = await verify(signNote(text, "fleet.example", seed));
    expect([mixed.code, mixed.stderr]).toEqual([1, expect.stringContaining("FAILED (checkpoint_wrong_log)")]);
    const noCheckpoint = await oc("bundle", "verify", flags[0] as string, "--jwks", flags[2] as string, ...witnesses);
    expect([noCheckpoint.code, noCheckpoint.stderr]).toEqual([
      2,
      expect.stringContaining("--witness needs --checkpoint"),
    ]);
    const tooMany = await verify(note, ...witnesses, "--witness-threshold", "3");
    expect([tooMany.code, tooMany.stderr]).toEqual([2, expect.stringContaining("the threshold 3 is not between 1")]);
  }, 60_000);

  it("npx open-oc (and its alias npx oc) runs this package's own bin from a clone", async () => {
    for (const name of ["open-oc", "oc"]) {
      const { stdout } = await run("npx", [name, "key", "new", "--type", "p2pkh"], { cwd: path.join(ROOT, "docs") });
      expect(JSON.parse(stdout).address).toMatch(/^1/);
    }
  }, 60_000);
});
