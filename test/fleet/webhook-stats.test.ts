// Webhook delivery health and statistics (issue 30): each attempt adds to its endpoint's hourly roll-up in the same
// batch as its result, the health line's states against real deliveries (a receiver that accepts, one that fails,
// a paused endpoint, one with nothing to send) and seeded hours, latency percentiles, and the routes' refusals.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { orm } from "../../shared/db/client";
import { attemptStatement } from "../../workers/fleet/src/activity/store";
import { HOUR_MS, hourOf } from "../../workers/fleet/src/activity/windows";
import { delegation } from "../helpers/envelopes";
import { FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

const RECEIVER = env.TEST_RECEIVER as string;

interface Line {
  endpoint_id: string;
  health: string;
  active: boolean;
  last_24h: { succeeded: number; retried: number; failed: number };
  last_failure: { at: string; reason: string } | null;
}
interface Stats {
  health: string;
  bucket: string;
  points: {
    at: string;
    succeeded: number;
    retried: number;
    failed: number;
    latency_ms: Record<string, number | null>;
  }[];
  totals: { succeeded: number; retried: number; failed: number };
  latency_ms: { p50: number | null; p90: number | null; p99: number | null };
  last_failure: { at: string; reason: string } | null;
}

async function endpoint(owner: FleetClient, projectId: string, path: string, active = true) {
  const res = await owner.call<{ endpoint: { id: string } }>("POST", "/api/webhooks/endpoints", {
    project_id: projectId,
    url: `${RECEIVER}${path}`,
    event_types: ["delegation.registered"],
    active,
  });
  expect(res.status).toBe(201);
  return res.body.endpoint.id;
}

/** An owner signed in with a wallet (a delegation's principal must be the registering account) and a project. */
async function walletOwner(name: string) {
  const principal = newWallet();
  const owner = await signedIn(principal.address);
  const res = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name });
  return { owner, projectId: res.body.project.id, principal };
}

async function register(owner: FleetClient, projectId: string, principal: ReturnType<typeof newWallet>) {
  const d = await delegation(principal, newWallet());
  expect((await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: d.envelope })).status).toBe(
    201,
  );
}

const health = async (owner: FleetClient, projectId: string) => {
  const res = await owner.call<{ endpoints: Line[] }>("GET", `/api/webhooks/health?project_id=${projectId}`);
  expect(res.status).toBe(200);
  return res.body.endpoints;
};

const stats = async (owner: FleetClient, id: string, window = "24h") => {
  const res = await owner.call<Stats>("GET", `/api/webhooks/endpoints/${id}/stats?window=${window}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

/** Polls the health line until `done` holds (deliveries run in the endpoint's object, after the 201). */
async function lineWhen(owner: FleetClient, projectId: string, id: string, done: (line: Line) => boolean) {
  for (let i = 0; i < 50; i++) {
    const line = (await health(owner, projectId)).find((l) => l.endpoint_id === id);
    if (line && done(line)) return line;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the deliveries did not arrive");
}

describe("delivery health from real attempts", () => {
  it("a receiver that accepts: green, counted per hour, with latency percentiles", async () => {
    const { owner, projectId, principal } = await walletOwner("healthy hooks");
    const id = await endpoint(owner, projectId, `/ok/${crypto.randomUUID()}`);
    await register(owner, projectId, principal);
    await register(owner, projectId, principal);
    const line = await lineWhen(owner, projectId, id, (l) => l.last_24h.succeeded === 2);
    expect(line).toMatchObject({
      health: "green",
      active: true,
      last_24h: { retried: 0, failed: 0 },
      last_failure: null,
    });
    const s = await stats(owner, id);
    expect(s.points).toHaveLength(24);
    expect(s.points.at(-1)).toMatchObject({ succeeded: 2, retried: 0, failed: 0 });
    expect(s.totals).toEqual({ succeeded: 2, retried: 0, failed: 0 });
    expect(s.latency_ms.p50).toBeGreaterThan(0);
    expect(s.latency_ms.p99).toBeLessThanOrEqual(8_000);
    expect(s.points[0]?.latency_ms).toEqual({ p50: null, p90: null, p99: null });
    const week = await stats(owner, id, "7d");
    expect(week).toMatchObject({ bucket: "day", totals: { succeeded: 2 } });
    expect(week.points).toHaveLength(7);
  });

  it("a receiver that fails: failing, with the last failure's reason; a paused endpoint; an idle one", async () => {
    const { owner, projectId, principal } = await walletOwner("failing hooks");
    const failing = await endpoint(owner, projectId, `/fail/${crypto.randomUUID()}`);
    const idle = await endpoint(owner, projectId, `/ok/${crypto.randomUUID()}`);
    const paused = await endpoint(owner, projectId, `/ok/${crypto.randomUUID()}`, false);
    // The idle endpoint subscribes to nothing this project registers.
    expect(
      (await owner.call("PATCH", `/api/webhooks/endpoints/${idle}`, { event_types: ["pledge.registered"] })).status,
    ).toBe(200);
    await register(owner, projectId, principal);
    const line = await lineWhen(owner, projectId, failing, (l) => l.last_24h.retried === 1);
    expect(line).toMatchObject({ health: "failing", last_failure: { reason: "http_500" } });
    const lines = await health(owner, projectId);
    expect(lines.map((l) => [l.endpoint_id, l.health])).toEqual([
      [failing, "failing"],
      [idle, "idle"],
      [paused, "paused"],
    ]);
    const s = await stats(owner, failing);
    expect(s).toMatchObject({ health: "failing", totals: { succeeded: 0, retried: 1, failed: 0 } });
    expect(s.last_failure?.reason).toBe("http_500");
  });
});

describe("the hourly roll-up", () => {
  it("adds each attempt's outcome and latency bucket to its hour and keeps the hour's last failure", async () => {
    const { owner, projectId } = await ownerWithProject("rolled");
    const id = await endpoint(owner, projectId, `/ok/${crypto.randomUUID()}`);
    const db = orm(await registryDb(projectId));
    const now = Date.now();
    const h0 = hourOf(now);
    const attempt = (
      at: number,
      outcome: "succeeded" | "retried" | "failed",
      latencyMs: number | null,
      failure: string | null,
    ) => db.$client.batch([attemptStatement(db, { projectId, endpointId: id, at, outcome, latencyMs, failure })]);
    // One row written per attempt (the table is its own key: WITHOUT ROWID), inserted or added to.
    const [first] = await attempt((h0 - 3) * HOUR_MS, "retried", 9_000, "timeout");
    const [second] = await attempt((h0 - 3) * HOUR_MS + 5, "failed", null, "url refused: private address");
    expect([first?.meta.rows_written, second?.meta.rows_written]).toEqual([1, 1]);
    await attempt((h0 - 3) * HOUR_MS + 9, "succeeded", 60, null);
    await attempt(h0 * HOUR_MS, "succeeded", 10, null);
    await attempt(h0 * HOUR_MS + 1, "succeeded", 40, null);
    const row = await (await registryDb(projectId))
      .prepare(
        "SELECT succeeded, retried, failed, latency, last_failure_at, last_failure FROM delivery_hours WHERE endpoint_id = ? AND hour = ?",
      )
      .bind(id, h0 - 3)
      .first();
    expect(row).toEqual({
      succeeded: 1,
      retried: 1,
      failed: 1,
      latency: "[0,1,0,0,0,0,0,1]",
      last_failure_at: (h0 - 3) * HOUR_MS + 5,
      last_failure: "url refused: private address",
    });
    // The latest busy hour succeeded; an earlier one did not: degrading.
    const s = await stats(owner, id);
    expect(s.health).toBe("degrading");
    expect(s.points[20]).toMatchObject({ succeeded: 1, retried: 1, failed: 1, latency_ms: { p50: 100, p99: 8_000 } });
    expect(s.points[23]).toMatchObject({ succeeded: 2, latency_ms: { p50: 50, p99: 50 } });
    expect(s.latency_ms).toEqual({ p50: 50, p90: 8_000, p99: 8_000 });
    expect(s.last_failure).toEqual({
      at: new Date((h0 - 3) * HOUR_MS + 5).toISOString(),
      reason: "url refused: private address",
    });
    // Out of the last 24 hours, a failure no longer colours the line.
    const old = await ownerWithProject("old failure");
    const quiet = await endpoint(old.owner, old.projectId, `/ok/${crypto.randomUUID()}`);
    const oldDb = orm(await registryDb(old.projectId));
    await oldDb.$client.batch([
      attemptStatement(oldDb, {
        projectId: old.projectId,
        endpointId: quiet,
        at: (h0 - 30) * HOUR_MS,
        outcome: "failed",
        latencyMs: 5,
        failure: "http_500",
      }),
      attemptStatement(oldDb, {
        projectId: old.projectId,
        endpointId: quiet,
        at: now,
        outcome: "succeeded",
        latencyMs: 5,
        failure: null,
      }),
    ]);
    expect((await health(old.owner, old.projectId))[0]?.health).toBe("green");
    expect((await stats(old.owner, quiet, "7d")).totals).toEqual({ succeeded: 1, retried: 0, failed: 1 });
  });
});

describe("the routes' refusals", () => {
  it("a viewer: role_forbidden; a stranger: not_found; bad ids and windows: invalid_id, invalid_query", async () => {
    const { owner, projectId } = await ownerWithProject("private hooks");
    const id = await endpoint(owner, projectId, `/ok/${crypto.randomUUID()}`);
    const token = await owner.call<{ secret: string }>("POST", "/api/tokens", {
      project_id: projectId,
      name: "r",
      scope: "read",
    });
    const viewer = new FleetClient();
    viewer.bearer = token.body.secret;
    for (const path of [`/api/webhooks/health?project_id=${projectId}`, `/api/webhooks/endpoints/${id}/stats`]) {
      const res = await viewer.call("GET", path);
      expect(res.body.reason, path).toBe("role_forbidden");
      const stranger = await (await signedIn()).call("GET", path);
      expect(stranger.body.reason, path).toBe("not_found");
    }
    expect((await owner.call("GET", "/api/webhooks/endpoints/whe_x/stats")).body.reason).toBe("invalid_id");
    expect((await owner.call("GET", `/api/webhooks/endpoints/${id}/stats?window=2d`)).body.reason).toBe(
      "invalid_query",
    );
    expect((await owner.call("GET", `/api/webhooks/health?project_id=${projectId}&window=24h`)).body.reason).toBe(
      "invalid_query",
    );
    expect((await owner.call("GET", "/api/webhooks/health")).body.reason).toBe("invalid_query");
  });
});
