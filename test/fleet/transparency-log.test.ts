// Each project's registrations as a transparency log (issue 18): appended in the registration's own batch, in the
// registry's order; the checkpoint is a signed note by the fleet's audit key (the same key the JWKS publishes);
// every envelope's inclusion proof verifies against it; an older checkpoint is consistent with a newer one; rows
// from before the log get their leaf hashes on first read; only members read it.
import { env } from "cloudflare:test";
import { base64, base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { rotateAuditKey } from "../../scripts/lib/key-rotation.mjs";
import { utf8 } from "../../shared/crypto/digest";
import { verifyBundle } from "../../shared/kit/envelopes/bundle";
import { checkBundleLog } from "../../shared/kit/envelopes/bundle-log";
import { parseCheckpoint } from "../../shared/tlog/checkpoint";
import { leafHash, rootOf, verifyConsistency, verifyInclusion } from "../../shared/tlog/merkle";
import { openNote, parseVerifierKey } from "../../shared/tlog/note";
import { app } from "../../workers/fleet/src/app";
import { action, delegation } from "../helpers/envelopes";
import { FLEET, type FleetClient, signedIn } from "../helpers/fleet";
import { newWallet } from "../helpers/wallet";

async function loggedProject(actions: number) {
  const principal = newWallet();
  const agent = newWallet("p2tr");
  const owner = await signedIn(principal.address);
  const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "log" });
  const projectId = created.body.project.id;
  const grant = await delegation(principal, agent);
  expect(
    (await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: grant.envelope })).status,
  ).toBe(201);
  const register = async () => {
    const one = await action(grant.id, agent);
    expect((await owner.call("POST", "/api/actions", { project_id: projectId, envelope: one.envelope })).status).toBe(
      201,
    );
  };
  for (let i = 0; i < actions; i++) await register();
  return { owner, projectId, register };
}

async function checkpointOf(owner: FleetClient, projectId: string) {
  const keyRes = await owner.call<{ verifier_key: string }>("GET", "/api/log/key");
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
  const { results } = await env.DB.prepare("SELECT id, body FROM envelopes WHERE project_id = ? ORDER BY seq")
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

  it("leaves from before the log get their hash on first read, and the root is the same", async () => {
    const { owner, projectId } = await loggedProject(3);
    const before = (await checkpointOf(owner, projectId)).checkpoint;
    await env.DB.prepare("UPDATE log_leaves SET hash = NULL WHERE project_id = ?").bind(projectId).run();
    const after = (await checkpointOf(owner, projectId)).checkpoint;
    expect(after).toEqual(before);
    const { results } = await env.DB.prepare(
      "SELECT count(*) AS n FROM log_leaves WHERE project_id = ? AND hash IS NULL",
    )
      .bind(projectId)
      .all<{ n: number }>();
    expect(results[0]?.n).toBe(0);
  });

  it("a CSV bundle checks offline against two checkpoints and the leaf order; anything changed fails", async () => {
    const { owner, projectId, register } = await loggedProject(2);
    const noteOf = async () => (await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`)).text();
    const older = await noteOf();
    for (let i = 0; i < 3; i++) await register();
    const newer = await noteOf();
    const bundle = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    const leaves = (await owner.call<{ ids: string[] }>("GET", `/api/log/leaves?project_id=${projectId}`)).body.ids;
    const { d: _private, ...publicJwk } = JSON.parse(env.FLEET_SIGNING_KEY as string) as Record<string, string>;
    const jwks = { keys: [publicJwk] };
    const check = (over: Partial<Parameters<typeof checkBundleLog>[0]>) =>
      checkBundleLog({ bundle, format: "csv", leaves, checkpoints: [older, newer], jwks, ...over });
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
    const newerNote = await (await rotatedFleet(`/api/log/checkpoint?project_id=${projectId}`)).text();
    const newerBundle = await (await rotatedFleet(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    const leaves = (await owner.call<{ ids: string[] }>("GET", `/api/log/leaves?project_id=${projectId}`)).body.ids;
    const both = { keys: JSON.parse(rotated.publishedKeys) as unknown[] };
    const older = await verifyBundle(olderBundle, both);
    const newer = await verifyBundle(newerBundle, both);
    expect([older.ok && older.manifest.kid, newer.ok && newer.manifest.kid]).toEqual([rotated.oldKid, "audit-next"]);
    const log = checkBundleLog({
      bundle: newerBundle,
      format: "csv",
      leaves,
      checkpoints: [olderNote, newerNote],
      jwks: both,
    });
    expect(log.ok && log.checkpoints.map((c) => c.size)).toEqual([3, 5]);
    // Each checkpoint names its key: with only the new key published, the older one is unsigned.
    const onlyNew = { keys: both.keys.slice(-1) };
    expect(
      checkBundleLog({ bundle: newerBundle, format: "csv", leaves, checkpoints: [olderNote], jwks: onlyNew }),
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
