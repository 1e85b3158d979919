// Each project's log as C2SP tlog-tiles (issue 29): a registration answers its leaf index; the project's integrator
// (poked after the registration, run by its alarm) turns leaves into tiles and a signed checkpoint; a tile client
// written only from the C2SP specifications (test/helpers/tile-client.ts, not the server's code) reads a 100,000-leaf
// log and verifies every proof it asks for; the old proof routes, answered from the tiles now, give the same roots
// and proofs as the tiles and as the reference tree over every leaf; tiles are the members', immutable, and cached.
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { bytesToHex } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { utf8 } from "../../shared/crypto/digest";
import { orm } from "../../shared/db/client";
import { httpLogReader, monitorStep, parseVerifierKey } from "../../shared/kit/log/index";
import { consistencyProof, inclusionProof, leafHash, rootOf } from "../../shared/tlog/merkle";
import { integrationWrites, readState } from "../../workers/fleet/src/log/store";
import { action, delegation } from "../helpers/envelopes";
import { FLEET, ownerWithProject, signedIn } from "../helpers/fleet";
import { integrateLog, loggedProject } from "../helpers/log";
import { registryDb } from "../helpers/registry-db";
import { createTileClient, verifyConsistency, verifyInclusion } from "../helpers/tile-client";
import { newWallet } from "../helpers/wallet";

const hex64 = (n: number) => n.toString(16).padStart(64, "0");
const bodyOf = (i: number) => `{"n":${i}}`;

/** `n` registrations written straight into D1, each leaf with its hash, as registrations write them. */
async function seeded(projectId: string, n: number): Promise<void> {
  // SQLite has no SHA-256: the hashes come from here, 400 rows a statement (D1 caps a statement at 100 KB).
  const statements: D1PreparedStatement[] = [];
  for (let start = 0; start < n; start += 400) {
    const values = Array.from({ length: Math.min(n, start + 400) - start }, (_, k) => {
      const i = start + k;
      return `('${projectId}', '${hex64(i)}', 'action', '${bodyOf(i)}', 0, ${i}, '${bytesToHex(leafHash(utf8(bodyOf(i))))}')`;
    });
    statements.push(
      (await registryDb(projectId)).prepare(
        `INSERT INTO envelopes (project_id, id, kind, body, created_at, leaf_idx, leaf_hash) VALUES ${values.join(",")}`,
      ),
    );
  }
  await (await registryDb(projectId)).batch(statements);
}

/** The verifier key of the project's log: the audit key named for its origin `<host>/api/log/<project>`. */
async function verifierKey(owner: { call: (m: string, p: string) => Promise<{ body: unknown }> }, projectId: string) {
  return ((await owner.call("GET", `/api/log/key?project_id=${projectId}`)).body as { verifier_key: string })
    .verifier_key;
}

describe("the log as tiles", () => {
  it("a registration answers its leaf index, the one its leaf has in the log, counted per project", async () => {
    const principal = newWallet();
    const agent = newWallet("p2tr");
    const owner = await signedIn(principal.address);
    const answered: [string, number][] = [];
    for (const name of ["first", "second"]) {
      const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name });
      const projectId = created.body.project.id;
      const grant = await delegation(principal, agent);
      const granted = await owner.call<{ log_index: number }>("POST", "/api/delegations", {
        project_id: projectId,
        envelope: grant.envelope,
      });
      answered.push([projectId, granted.body.log_index]);
      for (let i = 0; i < 2; i++) {
        const one = await action(grant.id, agent);
        const res = await owner.call<{ log_index: number }>("POST", "/api/actions", {
          project_id: projectId,
          envelope: one.envelope,
        });
        expect(res.status).toBe(201);
        answered.push([projectId, res.body.log_index]);
      }
    }
    // Each project's leaves in the order they were written (its own shard in the fleet-shards pass).
    const stored: [string, number][] = [];
    for (const projectId of [answered[0]?.[0] ?? "", answered[3]?.[0] ?? ""]) {
      const { results } = await (await registryDb(projectId))
        .prepare("SELECT project_id, leaf_idx AS idx FROM envelopes WHERE project_id = ? ORDER BY seq")
        .bind(projectId)
        .all<{ project_id: string; idx: number }>();
      stored.push(...results.map((r): [string, number] => [r.project_id, r.idx]));
    }
    expect(stored).toEqual(answered);
    expect(answered.map(([, index]) => index)).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it("the integrator is poked by a registration and integrates on its alarm; the checkpoint then covers it", async () => {
    const { owner, projectId, register } = await loggedProject(0);
    const integrator = env.LOG_INTEGRATOR.get(env.LOG_INTEGRATOR.idFromName(projectId));
    // The poke runs after the answer (waitUntil): wait for its alarm.
    await expect
      .poll(() => runInDurableObject(integrator, (_object, state) => state.storage.getAlarm()))
      .not.toBeNull();
    expect(await readState(orm(await registryDb(projectId)), projectId)).toBeUndefined();
    expect(await runDurableObjectAlarm(integrator)).toBe(true);
    expect((await readState(orm(await registryDb(projectId)), projectId))?.size).toBe(1);
    // This isolate counts the leaves it commits before the alarm's time as covered by it and pokes no more; the
    // test fired the alarm early, so the next leaf waits for the integrator's next run (here: now).
    await register();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await runInDurableObject(integrator, (_object, state) => state.storage.getAlarm())).toBeNull();
    await integrateLog(projectId);
    const note = await (await owner.fetch(`/api/log/${projectId}/checkpoint`)).text();
    expect(note.split("\n")[1]).toBe("2");
  });

  it("a poke sets the alarm between 0.75 and 1 interval out, at random, so projects poked together drift apart", async () => {
    const interval = 3_600_000; // vitest.config.ts: LOG_CHECKPOINT_INTERVAL_MS
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const projectId = `proj_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
      const before = Date.now();
      const at = await env.LOG_INTEGRATOR.get(env.LOG_INTEGRATOR.idFromName(projectId)).poke(projectId);
      expect(at - before).toBeGreaterThanOrEqual(0.75 * interval - 1);
      expect(at - Date.now()).toBeLessThanOrEqual(interval);
      waits.push(at - before);
    }
    expect(new Set(waits).size).toBeGreaterThan(1);
  });

  it("a tile client written from the C2SP specs reads a 100,000-leaf log and verifies every proof it asks for", async () => {
    const n = 100_000;
    const { owner, projectId } = await ownerWithProject("tiles");
    await seeded(projectId, n);
    const integrated = await integrateLog(projectId);
    expect(integrated).toMatchObject({ from: 0, to: n, more: false });
    const client = createTileClient({
      prefix: `http://localhost:8788/api/log/${projectId}/`,
      fetch: (url) => owner.fetch(new URL(url).pathname),
      verifierKey: await verifierKey(owner, projectId),
      origin: `localhost:8788/api/log/${projectId}`,
    });
    const checkpoint = await client.checkpoint();
    expect(checkpoint.size).toBe(n);
    const leaves = Array.from({ length: n }, (_, i) => leafHash(utf8(bodyOf(i))));
    expect(checkpoint.root).toEqual(rootOf(leaves));
    expect(await client.root(n)).toEqual(checkpoint.root);
    for (const index of [0, 1, 255, 256, 65_535, 65_536, 77_777, n - 2, n - 1]) {
      const leaf = await client.leafHash(index, n);
      const proof = await client.inclusionProof(index, n);
      expect(verifyInclusion(index, n, leaf, proof, checkpoint.root), `leaf ${index}`).toBe(true);
      expect(new TextDecoder().decode(await client.entry(index, n))).toBe(bodyOf(index));
      // The server's own route gives the same proof, from the same tiles.
      const served = await owner.call<{ proof: string[] }>(
        "GET",
        `/api/log/inclusion?project_id=${projectId}&id=${hex64(index)}`,
      );
      expect(served.body.proof).toEqual(proof.map((h) => base64.encode(h)));
    }
    for (const first of [1, 256, 4_097, 65_536, 99_999]) {
      const proof = await client.consistencyProof(first, n);
      const firstRoot = await client.root(first);
      expect(firstRoot).toEqual(rootOf(leaves.slice(0, first)));
      expect(verifyConsistency(first, n, firstRoot, checkpoint.root, proof), `first ${first}`).toBe(true);
      const served = await owner.call<{ proof: string[] }>(
        "GET",
        `/api/log/consistency?project_id=${projectId}&first=${first}`,
      );
      expect(served.body.proof).toEqual(proof.map((h) => base64.encode(h)));
    }
  }, 120_000);

  it("the proof routes and the tiles agree with the reference tree at every size as the log grows", async () => {
    const { owner, projectId, register } = await loggedProject(0);
    const sizes: number[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i <= round * 2; i++) await register();
      sizes.push((await integrateLog(projectId)).to);
    }
    const { results } = await (await registryDb(projectId))
      .prepare("SELECT body FROM envelopes WHERE project_id = ? ORDER BY leaf_idx")
      .bind(projectId)
      .all<{ body: string }>();
    const leaves = results.map((r) => leafHash(utf8(r.body)));
    const n = leaves.length;
    expect(sizes.at(-1)).toBe(n);
    const ids = (await owner.call<{ ids: string[] }>("GET", `/api/log/leaves?project_id=${projectId}`)).body.ids;
    for (const [index, id] of ids.entries()) {
      const served = await owner.call<{ proof: string[] }>(
        "GET",
        `/api/log/inclusion?project_id=${projectId}&id=${id}`,
      );
      expect(served.body.proof).toEqual(inclusionProof(index, leaves).map((h) => base64.encode(h)));
    }
    for (const first of sizes) {
      const served = await owner.call<{ proof: string[] }>(
        "GET",
        `/api/log/consistency?project_id=${projectId}&first=${first}`,
      );
      expect(served.body.proof).toEqual(consistencyProof(first, leaves).map((h) => base64.encode(h)));
    }
  });

  it("tiles: C2SP paths, octet-stream, immutable caching; a width past the checkpoint, a bad path or a non-member is refused", async () => {
    const { owner, projectId, register } = await loggedProject(2);
    await integrateLog(projectId);
    const tile = await owner.fetch(`/api/log/${projectId}/tile/0/000.p/3`);
    expect(tile.status).toBe(200);
    expect(tile.headers.get("content-type")).toBe("application/octet-stream");
    expect(tile.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    expect((await tile.arrayBuffer()).byteLength).toBe(96);
    const entries = await owner.fetch(`/api/log/${projectId}/tile/entries/000.p/3`);
    expect(entries.status).toBe(200);
    const checkpoint = await owner.fetch(`/api/log/${projectId}/checkpoint`);
    expect(checkpoint.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    // A leaf registered since the checkpoint is not served until a checkpoint covers it.
    await register();
    expect((await owner.fetch(`/api/log/${projectId}/tile/0/000.p/4`)).status).toBe(404);
    expect((await owner.fetch(`/api/log/${projectId}/tile/entries/000.p/4`)).status).toBe(404);
    for (const bad of ["0/000", "0/00.p/3", "0/000.p/0", "0/000.p/256", "64/000", "0/x000/000.p/3", "1/000.p/1"]) {
      const res = await owner.fetch(`/api/log/${projectId}/tile/${bad}`);
      expect([res.status, ((await res.json()) as { reason: string }).reason], bad).toEqual([404, "not_found"]);
    }
    const bad = await owner.fetch("/api/log/proj_nope/tile/0/000.p/3");
    expect([bad.status, ((await bad.json()) as { reason: string }).reason]).toEqual([400, "invalid_id"]);
    const stranger = await ownerWithProject("elsewhere");
    for (const path of [`/api/log/${projectId}/tile/0/000.p/3`, `/api/log/${projectId}/checkpoint`]) {
      const res = await stranger.owner.fetch(path);
      expect([res.status, ((await res.json()) as { reason: string }).reason], path).toEqual([404, "not_found"]);
    }
  });

  it("the kit's monitor follows the fleet's real log over HTTP: every entry verified, then only the new ones", async () => {
    const { owner, projectId, register } = await loggedProject(3);
    const token = await owner.call<{ secret: string }>("POST", "/api/tokens", {
      project_id: projectId,
      name: "monitor",
      scope: "read",
    });
    expect(token.status).toBe(201);
    const fleetFetch: typeof fetch = (input, init) =>
      SELF.fetch(input, { ...init, headers: { ...init?.headers, "cf-connecting-ip": "198.51.100.7" } });
    const reader = httpLogReader({ fleet: FLEET, projectId, token: token.body.secret, fetch: fleetFetch });
    const key = parseVerifierKey(await verifierKey(owner, projectId));
    if (!key) throw new Error("no verifier key");
    const watch = { reader, fleetHost: new URL(FLEET).host, projectId, auditKeys: [key.publicKey] };
    await integrateLog(projectId);
    const first = await monitorStep(watch);
    expect(first).toMatchObject({ ok: true, previousSize: 0, verified: 4 });
    for (let i = 0; i < 2; i++) await register();
    await integrateLog(projectId);
    const next = await monitorStep({ ...watch, state: first.ok ? first.state : undefined });
    expect(next).toMatchObject({ ok: true, previousSize: 4, verified: 2, checkpoint: { size: 6 } });
  });

  it("integration only grows what it writes: a stale integrator's smaller tiles and size change nothing", async () => {
    const { projectId } = await loggedProject(4);
    await integrateLog(projectId);
    const db = orm(await registryDb(projectId));
    const before = await readState(db, projectId);
    const tilesBefore = await (await registryDb(projectId))
      .prepare("SELECT level, idx, hashes FROM log_tiles WHERE project_id = ?")
      .bind(projectId)
      .all();
    // What an integrator that read size 2 would write.
    const stale = integrationWrites(
      db,
      projectId,
      [{ level: 0, index: 0, hashes: new Uint8Array(64) }],
      { size: 2, root: new Uint8Array(32), checkpoint: "stale\n" },
      Date.now(),
    );
    await db.$client.batch(stale);
    expect(await readState(db, projectId)).toEqual(before);
    const tilesAfter = await (await registryDb(projectId))
      .prepare("SELECT level, idx, hashes FROM log_tiles WHERE project_id = ?")
      .bind(projectId)
      .all();
    expect(tilesAfter.results).toEqual(tilesBefore.results);
    // Two integrators at once: the same log.
    const twice = await Promise.all([integrateLog(projectId), integrateLog(projectId)]);
    expect(twice.map((r) => r.to)).toEqual([5, 5]);
  });
});
