// Each project's registrations as a transparency log (issue 18): appended in the registration's own batch, in the
// registry's order; the checkpoint is a signed note by the fleet's audit key (the same key the JWKS publishes);
// every envelope's inclusion proof verifies against it; an older checkpoint is consistent with a newer one; rows
// written without a hash are left out until the cron hashes them; only members read it. Offline, only the JWKS's audit
// keys vouch for a bundle or a checkpoint, and a checkpoint must be this project's log on this fleet (issue 26).
import { env } from "cloudflare:test";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base64, base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { rotateAuditKey } from "../../scripts/lib/key-rotation.mjs";
import {
  bundleTail,
  encodeSignature,
  type Manifest,
  manifestBytes,
  splitBundle,
} from "../../shared/audit/bundle-format";
import { utf8 } from "../../shared/crypto/digest";
import { type KeyUse, parsePreviousKeys, publishedJwk, toPublicJwk } from "../../shared/crypto/signing-key";
import { orm } from "../../shared/db/client";
import { verifyBundle } from "../../shared/kit/envelopes/bundle";
import { checkBundleLog } from "../../shared/kit/envelopes/bundle-log";
import { checkpointText, parseCheckpoint } from "../../shared/tlog/checkpoint";
import { leafHash, rootOf, verifyConsistency, verifyInclusion } from "../../shared/tlog/merkle";
import { openNote, parseVerifierKey, signNote } from "../../shared/tlog/note";
import { app } from "../../workers/fleet/src/app";
import { integrateFor } from "../../workers/fleet/src/log/integrate";
import { logKey } from "../../workers/fleet/src/log/key";
import { signCheckpoint } from "../../workers/fleet/src/log/sign";
import { hashLeaves } from "../../workers/fleet/src/registry/leaf-hashes";
import { FLEET, type FleetClient, signedIn } from "../helpers/fleet";
import { integrateLog, loggedProject } from "../helpers/log";
import { registryDb } from "../helpers/registry-db";

/** The fleet's host, as it names its checkpoints (FLEET_ORIGIN in wrangler.toml): the verifier's trusted input. */
const FLEET_HOST = new URL(FLEET).host;

type PrivateJwk = { kty: "OKP"; crv: "Ed25519"; x: string; d: string; kid: string };
const AUDIT_KEY = JSON.parse(env.FLEET_SIGNING_KEY as string) as PrivateJwk;
const SESSION_KEY = JSON.parse(env.AUTH_SIGNING_KEY as string) as PrivateJwk;

/** A JWKS as the auth host serves it (workers/auth/src/routes/jwks.ts): each key marked with its use. */
const jwksOf = (...keys: [PrivateJwk, KeyUse][]) => ({
  keys: keys.map(([key, use]) => publishedJwk(toPublicJwk(key), use)),
});
const LIVE_JWKS = jwksOf([SESSION_KEY, "session"], [AUDIT_KEY, "audit"]);

/** The project's checkpoint once its integrator has caught up with what the test registered. */
async function checkpointOf(owner: FleetClient, projectId: string) {
  await integrateLog(projectId);
  const keyRes = await owner.call<{ verifier_key: string }>("GET", `/api/log/key?project_id=${projectId}`);
  const key = parseVerifierKey(keyRes.body.verifier_key);
  if (!key) throw new Error("no verifier key");
  const res = await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`);
  expect(res.status).toBe(200);
  const opened = openNote(await res.text(), [key]);
  const checkpoint = parseCheckpoint(opened?.text ?? "");
  if (!checkpoint) throw new Error("no checkpoint");
  return { key, checkpoint };
}

/** The envelopes' bytes in the registry's replay order, straight from D1. */
async function storedBodies(projectId: string) {
  const { results } = await (await registryDb(projectId))
    .prepare("SELECT id, body FROM envelopes WHERE project_id = ? ORDER BY seq")
    .bind(projectId)
    .all<{ id: string; body: string }>();
  return results;
}

describe("transparency log", () => {
  it("the checkpoint is signed by the audit key the JWKS publishes, over the registrations in order", async () => {
    const { owner, projectId } = await loggedProject(4);
    const { key, checkpoint } = await checkpointOf(owner, projectId);
    const fleetJwk = JSON.parse(env.FLEET_SIGNING_KEY as string) as { x: string };
    expect(key.publicKey).toEqual(base64urlnopad.decode(fleetJwk.x));
    const bodies = await storedBodies(projectId);
    expect(checkpoint.size).toBe(5);
    expect(checkpoint.origin).toMatch(new RegExp(`/log/${projectId}$`));
    expect(checkpoint.root).toEqual(rootOf(bodies.map((b) => leafHash(utf8(b.body)))));
  });

  it("the integrator's WebCrypto signature makes the same note, byte for byte, as the reference signer", async () => {
    const { owner, projectId } = await loggedProject(2);
    await integrateLog(projectId);
    const served = await (await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`)).text();
    const text = served.slice(0, served.lastIndexOf("\n\n") + 1);
    const seed = base64urlnopad.decode(AUDIT_KEY.d);
    expect(served).toBe(signNote(text, `${FLEET_HOST}/api/log/${projectId}`, seed));
    // The empty log's checkpoint (a project before its first registration) is signed the same way, under its origin.
    const key = logKey(env, FLEET);
    expect(await signCheckpoint(key, "x/log/proj_empty\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n")).toBe(
      signNote("x/log/proj_empty\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n", "x/log/proj_empty", seed),
    );
  });

  it("an audit key WebCrypto cannot import answers signing_key_unset, not a 500", async () => {
    const { x: _x, ...withoutX } = AUDIT_KEY;
    const key = logKey({ FLEET_SIGNING_KEY: JSON.stringify(withoutX) }, FLEET);
    await expect(signCheckpoint(key, "x/log/p\n0\nAA==\n")).rejects.toMatchObject({ reason: "signing_key_unset" });
  });

  it("every envelope's inclusion proof verifies against the checkpoint", async () => {
    const { owner, projectId } = await loggedProject(5);
    const { checkpoint } = await checkpointOf(owner, projectId);
    const bodies = await storedBodies(projectId);
    for (const [i, b] of bodies.entries()) {
      const res = await owner.call<{ index: number; size: number; proof: string[] }>(
        "GET",
        `/api/log/inclusion?project_id=${projectId}&id=${b.id}`,
      );
      expect(res.body.index).toBe(i);
      const proof = res.body.proof.map((p) => base64.decode(p));
      expect(verifyInclusion(i, checkpoint.size, leafHash(utf8(b.body)), proof, checkpoint.root)).toBe(true);
    }
    const unknown = await owner.call("GET", `/api/log/inclusion?project_id=${projectId}&id=${"0".repeat(64)}`);
    expect(unknown).toMatchObject({ status: 404, body: { reason: "not_found" } });
  });

  it("an older checkpoint is consistent with a newer one", async () => {
    const { owner, projectId, register } = await loggedProject(2);
    const older = (await checkpointOf(owner, projectId)).checkpoint;
    for (let i = 0; i < 4; i++) await register();
    const newer = (await checkpointOf(owner, projectId)).checkpoint;
    const res = await owner.call<{ proof: string[] }>(
      "GET",
      `/api/log/consistency?project_id=${projectId}&first=${older.size}&second=${newer.size}`,
    );
    const proof = res.body.proof.map((p) => base64.decode(p));
    expect(verifyConsistency(older.size, newer.size, proof, older.root, newer.root)).toBe(true);
    const tooFar = await owner.call("GET", `/api/log/consistency?project_id=${projectId}&first=1&second=99`);
    expect(tooFar).toMatchObject({ status: 400, body: { reason: "invalid_query" } });
  });

  it("leaves written without a hash are out of the log until the cron hashes them; then the root is the same", async () => {
    const { owner, projectId } = await loggedProject(3);
    const bodies = await storedBodies(projectId);
    // Leaves from before registrations carried their hash, not integrated yet (no pokes fire in tests).
    await (await registryDb(projectId))
      .prepare("UPDATE envelopes SET leaf_hash = NULL WHERE project_id = ?")
      .bind(projectId)
      .run();
    // Neither reading nor integrating writes a hash (issue 26): the log is the hashed prefix, here empty.
    expect((await checkpointOf(owner, projectId)).checkpoint.size).toBe(0);
    await hashLeaves(orm(await registryDb(projectId)));
    const after = (await checkpointOf(owner, projectId)).checkpoint;
    expect(after.size).toBe(4);
    expect(after.root).toEqual(rootOf(bodies.map((b) => leafHash(utf8(b.body)))));
    const { results } = await (await registryDb(projectId))
      .prepare("SELECT count(*) AS n FROM envelopes WHERE project_id = ? AND leaf_hash IS NULL")
      .bind(projectId)
      .all<{ n: number }>();
    expect(results[0]?.n).toBe(0);
  });

  it("a CSV bundle checks offline against two checkpoints and the leaf order; anything changed fails", async () => {
    const { owner, projectId, register } = await loggedProject(2);
    const noteOf = async () => {
      await integrateLog(projectId);
      return (await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`)).text();
    };
    const older = await noteOf();
    for (let i = 0; i < 3; i++) await register();
    const newer = await noteOf();
    const bundle = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    const leaves = (await owner.call<{ ids: string[] }>("GET", `/api/log/leaves?project_id=${projectId}`)).body.ids;
    const jwks = LIVE_JWKS;
    const check = (over: Partial<Parameters<typeof checkBundleLog>[0]>) =>
      checkBundleLog({
        bundle,
        format: "csv",
        leaves,
        checkpoints: [older, newer],
        jwks,
        projectId,
        fleetHost: FLEET_HOST,
        ...over,
      });
    const ok = check({});
    expect(ok.ok && ok.checkpoints.map((c) => c.size)).toEqual([3, 6]);
    const [firstId, secondId] = leaves as [string, string];
    expect(check({ leaves: [secondId, firstId, ...leaves.slice(2)] })).toMatchObject({ reason: "root_mismatch" });
    // One byte of one envelope changed (a space in a key): another leaf, another root.
    expect(check({ bundle: bundle.replace("signed_at", "signed_at ") })).toMatchObject({ reason: "root_mismatch" });
    expect(check({ jwks: { keys: [] } })).toMatchObject({ reason: "checkpoint_unsigned" });
    expect(check({ leaves: leaves.slice(0, 4) })).toMatchObject({ reason: "leaf_missing" });
    expect(check({ format: "ndjson" })).toMatchObject({ reason: "format_unsupported" });
    // The JSON export carries the same bytes: it checks out the same way.
    const json = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=json`)).text();
    const fromJson = check({ bundle: json, format: "json" });
    expect(fromJson.ok && fromJson.checkpoints.map((c) => c.size)).toEqual([3, 6]);
    expect(check({ bundle: json.replace("signed_at", "signed_at "), format: "json" })).toMatchObject({
      reason: "root_mismatch",
    });
  });

  it("after an audit-key rotation, old and new checkpoints and bundles all verify, each by the key it names", async () => {
    const { owner, projectId, register } = await loggedProject(2);
    await integrateLog(projectId);
    const olderNote = await (await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`)).text();
    const olderBundle = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    // What `npm run keys -- rotate audit` makes of this deployment's key: the fleet signs with the new one from now.
    const fresh = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
    const exported = (await crypto.subtle.exportKey("jwk", (fresh as CryptoKeyPair).privateKey)) as JsonWebKey;
    const rotated = rotateAuditKey({
      signingKey: env.FLEET_SIGNING_KEY as string,
      publishedKeys: "[]",
      fresh: { kty: "OKP", crv: "Ed25519", x: exported.x, d: exported.d, kid: "audit-next" },
    });
    const rotatedFleet = (path: string) => {
      const headers = { cookie: `oc_session=${owner.cookie}`, "cf-connecting-ip": owner.ip };
      return app.request(`${FLEET}${path}`, { headers }, { ...env, ...rotated.secrets });
    };
    for (let i = 0; i < 2; i++) await register();
    // The integrator after the rotation's deploy: it signs the next checkpoint with the new key.
    await integrateFor(
      orm(await registryDb(projectId)),
      logKey({ ...env, ...rotated.secrets }),
      projectId,
      Number.POSITIVE_INFINITY,
    );
    const newerNote = await (await rotatedFleet(`/api/log/checkpoint?project_id=${projectId}`)).text();
    const newerBundle = await (await rotatedFleet(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    const leaves = (await owner.call<{ ids: string[] }>("GET", `/api/log/leaves?project_id=${projectId}`)).body.ids;
    // PUBLISHED_KEYS as the auth host's JWKS serves them: marked for audit.
    const both = { keys: parsePreviousKeys(rotated.publishedKeys).map((k) => publishedJwk(k, "audit")) };
    const older = await verifyBundle(olderBundle, both);
    const newer = await verifyBundle(newerBundle, both);
    expect([older.ok && older.manifest.kid, newer.ok && newer.manifest.kid]).toEqual([rotated.oldKid, "audit-next"]);
    const pinned = { projectId, fleetHost: FLEET_HOST };
    const log = checkBundleLog({
      bundle: newerBundle,
      format: "csv",
      leaves,
      checkpoints: [olderNote, newerNote],
      jwks: both,
      ...pinned,
    });
    expect(log.ok && log.checkpoints.map((c) => c.size)).toEqual([3, 5]);
    // Each checkpoint names its key: with only the new key published, the older one is unsigned.
    const onlyNew = { keys: both.keys.slice(-1) };
    expect(
      checkBundleLog({
        bundle: newerBundle,
        format: "csv",
        leaves,
        checkpoints: [olderNote],
        jwks: onlyNew,
        ...pinned,
      }),
    ).toMatchObject({
      reason: "checkpoint_unsigned",
    });
  });

  it("only the project's members read its log", async () => {
    const { projectId } = await loggedProject(1);
    const stranger = await signedIn();
    for (const path of [
      `/api/log/checkpoint?project_id=${projectId}`,
      `/api/log/consistency?project_id=${projectId}&first=1`,
    ]) {
      const res = await stranger.fetch(path);
      expect(res.status).toBe(404);
    }
  });
});

describe("offline checks pin the key's use and the checkpoint's log (issue 26)", () => {
  const seed = (key: PrivateJwk) => base64urlnopad.decode(key.d);
  const auditNoteKey = { name: FLEET_HOST, publicKey: base64urlnopad.decode(AUDIT_KEY.x) };

  /** A project's CSV bundle, leaf order and latest checkpoint, as a verifier downloads them. */
  async function downloaded() {
    const { owner, projectId } = await loggedProject(2);
    const bundle = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    const leaves = (await owner.call<{ ids: string[] }>("GET", `/api/log/leaves?project_id=${projectId}`)).body.ids;
    const note = await (await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`)).text();
    const text = openNote(note, [{ ...auditNoteKey, name: `${FLEET_HOST}/api/log/${projectId}` }])?.text ?? "";
    const checkpoint = parseCheckpoint(text);
    if (!checkpoint) throw new Error("no checkpoint");
    const check = (checkpoints: string[], jwks: { keys?: unknown } = LIVE_JWKS) =>
      checkBundleLog({ bundle, format: "csv", leaves, checkpoints, jwks, projectId, fleetHost: FLEET_HOST });
    // The control: the genuine checkpoint checks out against the JWKS the auth host serves.
    expect(check([note])).toMatchObject({ ok: true });
    return { projectId, bundle, note, text, checkpoint, check };
  }

  it("a bundle whose manifest is signed by a session key (oc_use session) is refused with wrong_key_use", async () => {
    const { bundle } = await downloaded();
    expect(await verifyBundle(bundle, LIVE_JWKS)).toMatchObject({ ok: true });
    const split = splitBundle(bundle, "csv");
    if (!split) throw new Error("not a bundle");
    // The same bytes under a manifest naming, and signed by, the auth host's session key.
    const manifest: Manifest = { ...split.trailer.manifest, kid: SESSION_KEY.kid };
    const signature = encodeSignature(ed25519.sign(manifestBytes(manifest), seed(SESSION_KEY)));
    const bySession = split.body + bundleTail("csv", manifest, signature);
    expect(await verifyBundle(bySession, LIVE_JWKS)).toMatchObject({ ok: false, reason: "wrong_key_use" });
    // The audit key itself vouches only while marked for audit: marked for sessions, or unmarked, it does not.
    expect(await verifyBundle(bundle, jwksOf([AUDIT_KEY, "session"]))).toMatchObject({ reason: "wrong_key_use" });
    expect(await verifyBundle(bundle, { keys: [toPublicJwk(AUDIT_KEY)] })).toMatchObject({ reason: "wrong_key_use" });
    expect(await verifyBundle(bundle, jwksOf([SESSION_KEY, "session"]))).toMatchObject({ reason: "unknown_kid" });
  });

  it("a checkpoint the audit key signed for another project's log, or another fleet's, is refused", async () => {
    const { projectId, checkpoint, check } = await downloaded();
    // The same root under another origin: the audit key signs every project's log, so the origin must be pinned.
    for (const origin of [`${FLEET_HOST}/log/proj_other`, `fleet.other.example/log/${projectId}`]) {
      const note = signNote(checkpointText({ ...checkpoint, origin }), FLEET_HOST, seed(AUDIT_KEY));
      expect(check([note])).toMatchObject({ ok: false, reason: "checkpoint_wrong_log" });
    }
    // A genuine checkpoint of another project.
    const other = await loggedProject(1);
    const otherNote = await (await other.owner.fetch(`/api/log/checkpoint?project_id=${other.projectId}`)).text();
    expect(check([otherNote])).toMatchObject({ ok: false, reason: "checkpoint_wrong_log" });
  });

  it("a checkpoint whose signature names another host as the key is refused with checkpoint_wrong_log", async () => {
    const { text, check } = await downloaded();
    const note = signNote(text, "fleet.other.example", seed(AUDIT_KEY));
    expect(check([note])).toMatchObject({ ok: false, reason: "checkpoint_wrong_log" });
  });

  it("a checkpoint signed by a session key (oc_use session) is refused with checkpoint_unsigned", async () => {
    const { note, text, check } = await downloaded();
    const bySession = signNote(text, FLEET_HOST, seed(SESSION_KEY));
    expect(check([bySession])).toMatchObject({ ok: false, reason: "checkpoint_unsigned" });
    // The genuine note, with the audit key published for sessions (or unmarked), has no audit key to verify it.
    expect(check([note], jwksOf([AUDIT_KEY, "session"]))).toMatchObject({ reason: "checkpoint_unsigned" });
    expect(check([note], { keys: [toPublicJwk(AUDIT_KEY)] })).toMatchObject({ reason: "checkpoint_unsigned" });
  });
});
