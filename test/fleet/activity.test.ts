// A project's activity (issue 30): registrations by kind and the log's size from the integrator's hourly roll-up
// (counted once, however integrators race), the windows' edges in UTC, the requests its rate limits refused, the
// rows read staying those of the roll-up with 100,000 registrations, and the route's refusals.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { orm } from "../../shared/db/client";
import { LEASE_WANT } from "../../shared/rate-limit/lease";
import { limiterFor } from "../../shared/rate-limit/shards";
import type { BucketRule } from "../../shared/rate-limit/token-bucket";
import { HOUR_MS, hourOf } from "../../workers/fleet/src/activity/windows";
import { FLEET_CALLER_SHARE_RULE, FLEET_PROJECT_RULE } from "../../workers/fleet/src/limits";
import { integrateBatch } from "../../workers/fleet/src/log/integrate";
import { logKey } from "../../workers/fleet/src/log/key";
import { recordD1 } from "../helpers/d1-recorder";
import { FLEET, FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { fleetAnswer } from "../helpers/fleet-app";
import { integrateLog, loggedProject } from "../helpers/log";
import { registryBinding, registryDb } from "../helpers/registry-db";

interface Point {
  at: string;
  registrations: number;
  by_kind: Record<string, number>;
  log_size: number;
  refused: { project: number; caller: number };
}
interface Activity {
  from: string;
  until: string;
  bucket: string;
  points: Point[];
  totals: { registrations: number; by_kind: Record<string, number>; refused: { project: number; caller: number } };
  log_size: number;
  limits: { project_per_minute: number; caller_per_minute: number };
}

const activity = async (client: FleetClient, projectId: string, window = "24h") => {
  const res = await client.call<Activity>("GET", `/api/projects/${projectId}/activity?window=${window}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

/** Envelopes (each its leaf) written straight into D1, one per creation time, kinds in turn; leaves hashed. */
async function seeded(projectId: string, times: readonly number[], kinds = ["action"]): Promise<void> {
  const db = await registryDb(projectId);
  const json = JSON.stringify(times.map((t, i) => ({ t, k: kinds[i % kinds.length] })));
  await db
    .prepare(
      `INSERT INTO envelopes (project_id, id, kind, body, created_at, leaf_idx, leaf_hash)
       SELECT ?, printf('%064x', key), value ->> 'k', '{"n":' || key || '}', value ->> 't', key, printf('%064x', key + 1)
       FROM json_each(?)`,
    )
    .bind(projectId, json)
    .run();
}

describe("a project's registrations and log size", () => {
  it("counts each kind once its leaf is integrated, once however often or concurrently integration runs", async () => {
    const { owner, projectId, register } = await loggedProject(3);
    let read = await activity(owner, projectId);
    // Nothing is counted before the integrator covers it: the chart agrees with the checkpoint.
    expect(read.totals.registrations).toBe(0);
    expect(read.log_size).toBe(0);
    await integrateLog(projectId);
    await integrateLog(projectId);
    read = await activity(owner, projectId);
    expect(read.points).toHaveLength(24);
    expect(read.totals.registrations).toBe(4);
    expect(read.totals.by_kind).toMatchObject({ delegation: 1, action: 3, pledge: 0 });
    expect(read.points.at(-1)).toMatchObject({ registrations: 4, log_size: 4 });
    expect(read.log_size).toBe(4);
    // Two integrators over the same new leaves at once (the object and the cron's catch-up): counted once.
    await register();
    await register();
    const db = orm(await registryDb(projectId));
    const key = logKey(env, FLEET);
    await Promise.all([integrateBatch(db, key, projectId), integrateBatch(db, key, projectId)]);
    read = await activity(owner, projectId);
    expect(read.totals).toMatchObject({ registrations: 6, by_kind: { action: 5, delegation: 1 } });
    expect(read.log_size).toBe(6);
    expect(read.limits).toEqual({ project_per_minute: 600, caller_per_minute: 150 });
    // What counting costs (docs/scale.md): nothing on the registration's path; in the integration, per leaf its
    // index entry and its envelope's, and one row written per hour and kind of the batch.
    for (let i = 0; i < 4; i++) await register();
    const recording = recordD1(await registryDb(projectId));
    await integrateBatch(orm(recording.db), key, projectId);
    const counting = recording.rows.filter((r) => r.sql.includes("activity_hours"));
    expect(counting).toHaveLength(1);
    // 4 leaves: 13 rows read (each leaf's entry, its envelope's index entry and row, and the state), 1 written.
    expect(counting[0]?.read).toBeLessThanOrEqual(3 * 4 + 2);
    expect(counting[0]?.written).toBeLessThanOrEqual(2);
  });

  it("places registrations in UTC hours and days by their creation time, the windows' edges exact", async () => {
    const { owner, projectId } = await ownerWithProject("edges");
    for (let attempt = 0; ; attempt++) {
      const h0 = hourOf(Date.now());
      const day0 = Math.floor(h0 / 24) * 24;
      await seeded(projectId, [
        (h0 - 24) * HOUR_MS + HOUR_MS - 1, // the last instant before the 24-hour window
        (h0 - 23) * HOUR_MS, // its first instant
        h0 * HOUR_MS - 1, // the previous hour's last
        h0 * HOUR_MS, // this hour's first
        (day0 - 6 * 24) * HOUR_MS, // the 7-day window's first instant (UTC midnight six days ago)
        (day0 - 6 * 24) * HOUR_MS - 1, // the instant before it
      ]);
      await integrateLog(projectId);
      const day = await activity(owner, projectId, "24h");
      const week = await activity(owner, projectId, "7d");
      if (hourOf(Date.now()) !== h0 && attempt === 0) continue; // the hour turned during the test: once more
      expect(day.from).toBe(new Date((h0 - 23) * HOUR_MS).toISOString());
      expect(day.until).toBe(new Date((h0 + 1) * HOUR_MS).toISOString());
      expect(day.points.map((p) => p.registrations)).toEqual([1, ...Array(21).fill(0), 1, 1]);
      expect(day.totals.registrations).toBe(3);
      // The log's size at each point's end: all six leaves now; at the first hour's end, those before it and in it.
      expect(day.points.at(-1)?.log_size).toBe(6);
      expect(day.points[0]?.log_size).toBe(4);
      expect(week.bucket).toBe("day");
      expect(week.from).toBe(new Date((day0 - 6 * 24) * HOUR_MS).toISOString());
      expect(week.points).toHaveLength(7);
      // The week holds all but the instant before its first day (the 24 hours' edges are all inside it).
      expect(week.points[0]?.registrations).toBe(1);
      expect(week.totals.registrations).toBe(5);
      expect(week.points[0]?.log_size).toBe(2);
      return;
    }
  });

  it("reads the roll-up's rows, not the registrations: 100,000 over 30 days", async () => {
    const { owner, projectId } = await ownerWithProject("busy");
    const h0 = hourOf(Date.now());
    const kinds = ["delegation", "subdelegation", "revocation", "action", "pledge", "outcome", "abandonment"];
    // Registration i in hour h0 − (i mod 720), of kind i mod 7: every (hour, kind) of 30 days has one or more.
    const TOTAL = 100_000;
    for (let start = 0; start < TOTAL; start += 10_000) {
      const db = await registryDb(projectId);
      const rows = `WITH RECURSIVE n(i) AS (SELECT ${start} UNION ALL SELECT i + 1 FROM n WHERE i < ${start + 9_999})`;
      await db
        .prepare(
          `${rows} INSERT INTO envelopes (project_id, id, kind, body, created_at, leaf_idx, leaf_hash)
           SELECT ?, printf('%064x', i), json_extract(?, '$[' || (i % 7) || ']'), '{}', (? - (i % 720)) * ${HOUR_MS}, i,
             printf('%064x', i + 1) FROM n`,
        )
        .bind(projectId, JSON.stringify(kinds), h0)
        .run();
    }
    await integrateLog(projectId);
    const db = await registryDb(projectId);
    const recording = recordD1(db);
    const { res, settled } = await fleetAnswer(
      new Request(`${FLEET}/api/projects/${projectId}/activity?window=30d`, {
        headers: { cookie: `oc_session=${owner.cookie}`, "cf-connecting-ip": owner.ip },
      }),
      { [await registryBinding(projectId)]: recording.db },
    );
    const body = (await res.json()) as Activity;
    await settled();
    expect(res.status).toBe(200);
    const fromHour = hourOf(Date.parse(body.from));
    const inWindow = await db
      .prepare("SELECT count(*) AS n, sum(count) AS total FROM activity_hours WHERE project_id = ? AND hour >= ?")
      .bind(projectId, fromHour)
      .first<{ n: number; total: number }>();
    // Exact totals: every registration of the window's hours, and the log's whole size.
    expect(body.totals.registrations).toBe(inWindow?.total);
    expect(body.log_size).toBe(TOTAL);
    expect(body.points.at(-1)?.log_size).toBe(TOTAL);
    // The rows read: the roll-up's rows of the window (at most 30 × 24 × 7), the log's state, and for each of the two
    // range reads the row past its end when one follows (another project's); never the 100,000.
    const rollupReads = recording.rows
      .filter((r) => /activity_hours|refusal_hours|log_state/.test(r.sql))
      .reduce((sum, r) => sum + r.read, 0);
    expect(inWindow?.n).toBeLessThanOrEqual(30 * 24 * 7);
    expect(rollupReads).toBeLessThanOrEqual((inWindow?.n ?? 0) + 3);
    expect(rollupReads).toBeGreaterThanOrEqual(inWindow?.n ?? 0);
  }, 120_000);
});

/** Leases every token of a bucket away, as other isolates spending it would. */
async function drain(key: string, rule: BucketRule) {
  const limiter = limiterFor(env.RATE_LIMITER, key);
  while ((await limiter.lease(key, rule, rule.capacity, 0, false)).granted > 0);
}

describe("requests refused by the project's limits", () => {
  it("counts a caller's refusals by its share and the project's by its bucket, without a write per refusal", async () => {
    const { owner, projectId } = await ownerWithProject("limits");
    const token = await owner.call<{ token: { id: string }; secret: string }>("POST", "/api/tokens", {
      project_id: projectId,
      name: "bot",
      scope: "read",
    });
    const key = `project-caller|${projectId}|token:${token.body.token.id}`;
    // The token's share spent elsewhere: its next requests are refused by its share, the project keeps the rest.
    await drain(key, FLEET_CALLER_SHARE_RULE);
    const binding = await registryBinding(projectId);
    const recording = recordD1(await registryDb(projectId));
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        fleetAnswer(
          new Request(`${FLEET}/api/projects/${projectId}`, {
            headers: { authorization: `Bearer ${token.body.secret}`, "cf-connecting-ip": owner.ip },
          }),
          { [binding]: recording.db },
        ),
      ),
    );
    for (const { res } of answers) expect(((await res.json()) as { reason: string }).reason).toBe("rate_limited");
    await Promise.all(answers.map(({ settled }) => settled()));
    // Three refusals in one isolate within the flush's moment: one write of 3.
    expect(recording.calls.filter((sql) => sql.includes("refusal_hours"))).toHaveLength(1);
    const read = await activity(owner, projectId);
    expect(read.totals.refused).toEqual({ project: 0, caller: 3 });
    expect(read.points.at(-1)?.refused).toEqual({ project: 0, caller: 3 });

    // The project's whole bucket spent: the owner is refused by it.
    const projectKey = `project|${projectId}`;
    // What this isolate still holds of its lease is spent first (at most LEASE_WANT), then the bucket refuses. The
    // bucket refills 10 tokens a second, which a slow machine's loop would lease again: it is drained before each.
    let status = 200;
    for (let i = 0; i <= LEASE_WANT && status === 200; i++) {
      await drain(projectKey, FLEET_PROJECT_RULE);
      const answer = await fleetAnswer(
        new Request(`${FLEET}/api/projects/${projectId}`, {
          headers: { cookie: `oc_session=${owner.cookie}`, "cf-connecting-ip": owner.ip },
        }),
        {},
      );
      status = answer.res.status;
      await answer.settled();
    }
    expect(status).toBe(429);
    const row = await (await registryDb(projectId))
      .prepare("SELECT hour, count FROM refusal_hours WHERE project_id = ? AND bucket = 'project'")
      .bind(projectId)
      .first<{ hour: number; count: number }>();
    expect(row?.count).toBe(1);
    expect(row?.hour).toBe(hourOf(Date.now()));
  });
});

describe("the activity route's refusals", () => {
  it("bad window or unknown field: invalid_query; bad id: invalid_id; no session: unauthenticated; a stranger: not_found", async () => {
    const { owner, projectId } = await ownerWithProject("refusals");
    for (const query of ["window=1y", "window=", "window=24h&extra=1", "from=0"]) {
      const res = await owner.call("GET", `/api/projects/${projectId}/activity?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.reason, query).toBe("invalid_query");
    }
    const bad = await owner.call("GET", "/api/projects/proj_nope/activity");
    expect(bad.body.reason).toBe("invalid_id");
    const anonymous = await new FleetClient().call("GET", `/api/projects/${projectId}/activity`);
    expect(anonymous.body.reason).toBe("unauthenticated");
    const stranger = await signedIn();
    const hidden = await stranger.call("GET", `/api/projects/${projectId}/activity`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.reason).toBe("not_found");
  });
});
