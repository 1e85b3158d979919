// The log's cost does not grow with the log (issue 26, review item 2; issue 29): a registration writes its leaf's
// hash in its own statement, so no read of the log ever writes; each log route runs the same few D1 queries for 3
// leaves and for 100,000 (answered from the tiles); leaves written without a hash (before registrations carried
// it) stay out of the log, which is their hashed prefix, until the cron hashes them in bounded slices that keep
// their progress, and its catch-up pokes the log's integrator.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { bytesToHex } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { utf8 } from "../../shared/crypto/digest";
import { orm } from "../../shared/db/client";
import { leafHash, rootOf } from "../../shared/tlog/merkle";
import { hashLeaves, LEAF_SLICE, LEAF_SLICES_PER_RUN } from "../../workers/fleet/src/registry/leaf-hashes";
import { recordD1 } from "../helpers/d1-recorder";
import { FLEET, FleetClient, ownerWithProject } from "../helpers/fleet";
import { fleetAnswer } from "../helpers/fleet-app";
import { integrateLog, loggedProject } from "../helpers/log";

const BIG = 100_000;
const HASHED = 60_000;
const hex64 = (n: number) => n.toString(16).padStart(64, "0");

/** `n` registrations written straight into D1 (one statement), the first `hashed` leaves with a hash. */
async function seeded(projectId: string, n: number, hashed: number): Promise<void> {
  const rows = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${n - 1})`;
  await env.DB.prepare(
    `${rows} INSERT INTO envelopes (project_id, id, kind, body, created_at, leaf_idx, leaf_hash)
     SELECT ?, printf('%064x', i), 'action', '{"n":' || i || '}', 0, i, CASE WHEN i < ${hashed} THEN printf('%064x', i + 1) END FROM n`,
  )
    .bind(projectId)
    .run();
}

/** The statements a member's GET prepares, through the app with a recording binding. */
async function statementsOf(owner: FleetClient, path: string) {
  const recording = recordD1();
  const { res, settled } = await fleetAnswer(
    new Request(`${FLEET}${path}`, { headers: { cookie: `oc_session=${owner.cookie}`, "cf-connecting-ip": owner.ip } }),
    { DB: recording.db },
  );
  await res.arrayBuffer();
  await settled();
  expect(res.status, path).toBe(200);
  return recording.statements.map((s) => s.sql);
}

/** The checkpoint's size once the project's integrator has caught up. */
async function checkpointSize(owner: FleetClient, projectId: string): Promise<number> {
  await integrateLog(projectId);
  const note = await (await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`)).text();
  return Number(note.split("\n")[1]);
}

describe("the log at a constant cost", () => {
  it("a registration writes its leaf's hash in its own statement", async () => {
    const { projectId } = await loggedProject(2);
    const { results } = await env.DB.prepare(
      "SELECT body, leaf_hash AS hash FROM envelopes WHERE project_id = ? ORDER BY leaf_idx",
    )
      .bind(projectId)
      .all<{ body: string; hash: string | null }>();
    expect(results).toHaveLength(3);
    for (const row of results) expect(row.hash).toBe(bytesToHex(leafHash(utf8(row.body))));
  });

  it("each log route runs the same few queries for 3 leaves and for 100,000, and none of them writes", async () => {
    const small = await loggedProject(2);
    // The big project: 100,000 leaves, the last 40,000 still without a hash (rows from before 0010), which the code
    // before this review hashed on the read, 90 a query, until D1's 1,000 queries per invocation ran out.
    const bigOwner = await ownerWithProject("big log");
    await seeded(bigOwner.projectId, BIG, HASHED);
    await integrateLog(bigOwner.projectId);
    await integrateLog(small.projectId);
    const routes = (projectId: string, id: string) => [
      `/api/log/checkpoint?project_id=${projectId}`,
      `/api/log/inclusion?project_id=${projectId}&id=${id}`,
      `/api/log/consistency?project_id=${projectId}&first=1`,
      `/api/log/leaves?project_id=${projectId}`,
    ];
    const smallLeaf = (await env.DB.prepare(
      "SELECT id AS envelope_id FROM envelopes WHERE project_id = ? AND leaf_idx = 1",
    )
      .bind(small.projectId)
      .first<{ envelope_id: string }>()) as { envelope_id: string };
    const smallRoutes = routes(small.projectId, smallLeaf.envelope_id);
    const bigRoutes = routes(bigOwner.projectId, hex64(4242));
    for (const [i, path] of smallRoutes.entries()) {
      const few = await statementsOf(small.owner, path);
      const many = await statementsOf(bigOwner.owner, bigRoutes[i] as string);
      expect(many.length, path).toBe(few.length);
      // The caller's session row, the membership, then the log: its state (with an inclusion's leaf index), and the
      // tiles a proof reads: at most four, whatever the size.
      expect(many.length, path).toBeLessThanOrEqual(4);
      expect(
        many.filter((sql) => /^\s*(insert|update|delete)/i.test(sql)),
        path,
      ).toEqual([]);
    }
    expect(await checkpointSize(bigOwner.owner, bigOwner.projectId)).toBe(HASHED);
    const inclusion = await bigOwner.owner.call<{ index: number; proof: string[] }>(
      "GET",
      `/api/log/inclusion?project_id=${bigOwner.projectId}&id=${hex64(4242)}`,
    );
    expect(inclusion.body.index).toBe(4242);
    expect(inclusion.body.proof).toHaveLength(16); // ⌈log2 60,000⌉
    // Out of the way of the cron tests below, which count the backlog.
    await env.DB.prepare("DELETE FROM envelopes WHERE project_id = ? AND leaf_hash IS NULL")
      .bind(bigOwner.projectId)
      .run();
  }, 120_000);

  it("leaves without a hash are left out until the cron hashes them; the log only ever grows", async () => {
    const { owner, projectId } = await loggedProject(4);
    // As a row from before 0010 was written: no hash from leaf 2 on (before any integration: no pokes in tests).
    await env.DB.prepare("UPDATE envelopes SET leaf_hash = NULL WHERE project_id = ? AND leaf_idx >= 2")
      .bind(projectId)
      .run();
    expect(await checkpointSize(owner, projectId)).toBe(2);
    const third = (await env.DB.prepare("SELECT id AS envelope_id FROM envelopes WHERE project_id = ? AND leaf_idx = 3")
      .bind(projectId)
      .first<{ envelope_id: string }>()) as { envelope_id: string };
    const notYet = await owner.call("GET", `/api/log/inclusion?project_id=${projectId}&id=${third.envelope_id}`);
    expect(notYet).toMatchObject({ status: 404, body: { reason: "not_found" } });
    // Reading wrote nothing: the leaves are still unhashed.
    const unhashed = () =>
      env.DB.prepare("SELECT count(*) AS n FROM envelopes WHERE project_id = ? AND leaf_hash IS NULL")
        .bind(projectId)
        .first<{ n: number }>();
    expect((await unhashed())?.n).toBe(3);
    // One slice of two: the log grows by exactly two.
    expect(await hashLeaves(orm(env.DB), 1, 2)).toBe(2);
    expect(await checkpointSize(owner, projectId)).toBe(4);
    // The cron's run hashes the rest; the root is the one over every envelope's stored bytes.
    const cron = await new FleetClient().fetch("/api/cron/reconcile", {
      method: "POST",
      fetchMetadata: false,
      headers: { authorization: "Bearer test-cron-secret" },
    });
    const ran = (await cron.json()) as { leaves_hashed: number; logs_behind: number };
    expect(ran, JSON.stringify(ran)).toMatchObject({ leaves_hashed: 1 });
    expect(ran.logs_behind).toBeGreaterThanOrEqual(1);
    expect((await unhashed())?.n).toBe(0);
    // The cron poked the project's integrator: its alarm is set, and when it fires the log has every leaf.
    const integrator = env.LOG_INTEGRATOR.get(env.LOG_INTEGRATOR.idFromName(projectId));
    expect(await runInDurableObject(integrator, (_object, state) => state.storage.getAlarm())).not.toBeNull();
    expect(await runDurableObjectAlarm(integrator)).toBe(true);
    const note = await (await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`)).text();
    expect(Number(note.split("\n")[1])).toBe(5);
  });

  it("100,000 unhashed leaves: a cron run makes two queries a slice and the backlog shrinks by what it hashed", async () => {
    const { owner, projectId } = await ownerWithProject("backlog");
    await seeded(projectId, BIG, 0);
    expect(await checkpointSize(owner, projectId)).toBe(0);
    const recording = recordD1();
    const hashed = await hashLeaves(orm(recording.db));
    const perRun = LEAF_SLICE * LEAF_SLICES_PER_RUN;
    expect(hashed).toBe(perRun);
    expect(recording.statements).toHaveLength(2 * LEAF_SLICES_PER_RUN);
    expect(await checkpointSize(owner, projectId)).toBe(perRun);
    // The prefix's root is the one over those envelopes' bytes, in order.
    const note = await (await owner.fetch(`/api/log/checkpoint?project_id=${projectId}`)).text();
    const expected = rootOf(Array.from({ length: perRun }, (_, i) => leafHash(utf8(`{"n":${i}}`))));
    expect(note.split("\n")[2]).toBe(btoa(String.fromCharCode(...expected)));
  }, 120_000);
});
