// The `oc` CLI run as a user runs it (spawned Node processes, no stack): key new, delegate printing a signed
// envelope the project's parser and verifier accept (the same id on a re-run with the same fields), an action
// and a pledge, usage errors, and offline audit-bundle verification against a JWKS file — good, tampered, wrong
// key — also through `npm run verify-bundle`'s script, and `npx oc` resolving this package's own bin in a clone.
import { execFile } from "node:child_process";
import { generateKeyPairSync, sign } from "node:crypto";
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
import { oc } from "../helpers/oc-cli";

const ROOT = path.join(import.meta.dirname, "../..");
const run = promisify(execFile);

const tmp = mkdtempSync(path.join(tmpdir(), "oc-cli-"));
const SCOPE = "stamp:sign(mime=text/markdown)";

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

  it("answers usage errors with exit 2 and the usage text", async () => {
    const missing = await oc("delegate", "--wif", "x");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--agent is required");
    expect((await oc("frobnicate")).code).toBe(2);
    expect((await oc("--help")).stdout).toContain("oc bundle verify");
    const badWif = await oc("revoke", "--wif", "nope", "--delegation", "a".repeat(64));
    expect(badWif.code).toBe(1);
  }, 30_000);

  it("bundle verify: OK for a signed bundle, FAILED with the reason for a tampered one or another key", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const jwk = { ...publicKey.export({ format: "jwk" }), kid: "kit-test", alg: "EdDSA", use: "sig" };
    const principal = JSON.parse((await oc("key", "new")).stdout) as { wif: string };
    const agent = JSON.parse((await oc("key", "new")).stdout) as { address: string };
    const envelope = JSON.parse(
      (await oc("delegate", "--wif", principal.wif, "--agent", agent.address, "--scope", SCOPE)).stdout,
    );
    const body =
      bundleHead("ndjson", "proj_kit") +
      bundleRow("ndjson", { kind: "delegation", id: envelope.id, body: JSON.stringify(envelope) }, true);
    const manifest: Manifest = {
      format: BUNDLE_FORMAT,
      bundle_id: "bnd_kit",
      project_id: "proj_kit",
      generated_at: "2026-06-01T00:00:00Z",
      export_format: "ndjson",
      counts: { delegation: 1, subdelegation: 0, revocation: 0, action: 0, pledge: 0, outcome: 0, abandonment: 0 },
      total: 1,
      sha256: await sha256Hex(body),
      kid: "kit-test",
      alg: "EdDSA",
    };
    const signature = sign(null, manifestBytes(manifest), privateKey).toString("base64url");
    const bundle = body + bundleTail("ndjson", manifest, signature);
    const files = {
      bundle: path.join(tmp, "bundle.ndjson"),
      tampered: path.join(tmp, "tampered.ndjson"),
      jwks: path.join(tmp, "jwks.json"),
      other: path.join(tmp, "other-jwks.json"),
    };
    writeFileSync(files.bundle, bundle);
    writeFileSync(files.tampered, bundle.replace(envelope.nonce, "f".repeat(32)));
    writeFileSync(files.jwks, JSON.stringify({ keys: [jwk] }));
    const otherKey = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" });
    writeFileSync(files.other, JSON.stringify({ keys: [{ ...otherKey, kid: "kit-test" }] }));

    const ok = await oc("bundle", "verify", files.bundle, "--jwks", files.jwks);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("OK: bundle bnd_kit of proj_kit");
    const tampered = await oc("bundle", "verify", files.tampered, "--jwks", files.jwks);
    expect([tampered.code, tampered.stderr]).toEqual([1, expect.stringContaining("FAILED (digest_mismatch)")]);
    const otherJwks = await oc("bundle", "verify", files.bundle, "--jwks", files.other);
    expect([otherJwks.code, otherJwks.stderr]).toEqual([1, expect.stringContaining("FAILED (bad_signature)")]);
    // The README walk-through's script is the same check.
    const script = await run(process.execPath, ["scripts/verify-bundle.mjs", files.bundle, "--jwks", files.jwks], {
      cwd: ROOT,
    });
    expect(script.stdout).toContain("1 envelopes re-verified");
  }, 60_000);

  it("npx oc runs this package's own bin from a clone", async () => {
    const { stdout } = await run("npx", ["oc", "key", "new", "--type", "p2pkh"], { cwd: path.join(ROOT, "docs") });
    expect(JSON.parse(stdout).address).toMatch(/^1/);
  }, 60_000);
});
