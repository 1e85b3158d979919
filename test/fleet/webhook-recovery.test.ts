// Recovering what a paused endpoint missed (issue 26, item 11): events registered while an endpoint is paused are
// not sent when it resumes (a project with no active endpoint keeps no event at all); POST …/recover queues them,
// from the last pause by default, once each, with the idempotency key that event has for that endpoint, verified by
// the stock libraries at a real receiver; paged; refused for a paused endpoint and for a caller below admin.
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orm } from "../../shared/db/client";
import { webhookEndpoints } from "../../shared/db/schema";
import { idempotencyKey } from "../../workers/fleet/src/webhooks/fanout";
import { recoverPage } from "../../workers/fleet/src/webhooks/recover";
import { delegation } from "../helpers/envelopes";
import { type FleetClient, signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

const RECEIVER = env.TEST_RECEIVER as string;
type Received = { headers: Record<string, string>; body: string; serviceOk: boolean; standardOk: boolean };
type Endpoint = { id: string; active: boolean; paused_at: string | null };
type Recovered = { since: string; queued: number; scanned: number; next_cursor: number | null };

async function received(path: string): Promise<Received[]> {
  return (await (await fetch(`${RECEIVER}/__admin/received?path=${encodeURIComponent(path)}`)).json()) as Received[];
}

async function receivedAtLeast(path: string, n: number): Promise<Received[]> {
  for (let i = 0; i < 100; i++) {
    const got = await received(path);
    if (got.length >= n) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${n} deliveries at ${path}`);
}

async function setup() {
  const principal = newWallet();
  const owner = await signedIn(principal.address);
  const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "recover" });
  return { principal, owner, projectId: created.body.project.id };
}

async function endpoint(owner: FleetClient, projectId: string, path: string, eventTypes = ["*"]) {
  const res = await owner.call<{ endpoint: Endpoint; secret: string }>("POST", "/api/webhooks/endpoints", {
    project_id: projectId,
    url: `${RECEIVER}${path}`,
    event_types: eventTypes,
  });
  expect(res.status).toBe(201);
  await fetch(`${RECEIVER}/__admin/secret`, { method: "PUT", body: JSON.stringify({ path, secret: res.body.secret }) });
  return res.body.endpoint;
}

async function register(owner: FleetClient, projectId: string, principal: ReturnType<typeof newWallet>) {
  const d = await delegation(principal, newWallet());
  expect((await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: d.envelope })).status).toBe(
    201,
  );
  return d.id;
}

const recover = (owner: FleetClient, id: string, body?: Record<string, unknown>) =>
  owner.call<Recovered>("POST", `/api/webhooks/endpoints/${id}/recover`, body);

describe("recovering a paused endpoint's events", () => {
  it("resuming sends nothing of the pause; recover queues each missed event once, verified at the receiver", async () => {
    const { principal, owner, projectId } = await setup();
    const path = `/ok/${crypto.randomUUID()}`;
    const ep = await endpoint(owner, projectId, path);
    expect(ep.paused_at).toBeNull();
    const before = await register(owner, projectId, principal);
    await receivedAtLeast(path, 1);

    const paused = await owner.call<{ endpoint: Endpoint }>("PATCH", `/api/webhooks/endpoints/${ep.id}`, {
      active: false,
    });
    expect(paused.body.endpoint).toMatchObject({ active: false, paused_at: expect.any(String) });
    // While it is paused: one registration with no active endpoint in the project (no event kept at all), then
    // another endpoint for actions only, then one more (its event kept, fanned out to nobody).
    const first = await register(owner, projectId, principal);
    await endpoint(owner, projectId, `/ok/${crypto.randomUUID()}`, ["action.registered"]);
    const second = await register(owner, projectId, principal);

    const resumed = await owner.call<{ endpoint: Endpoint }>("PATCH", `/api/webhooks/endpoints/${ep.id}`, {
      active: true,
    });
    expect(resumed.body.endpoint.paused_at).toBe(paused.body.endpoint.paused_at);
    await new Promise((r) => setTimeout(r, 300));
    expect(await received(path)).toHaveLength(1);

    const recovered = await recover(owner, ep.id);
    expect(recovered.status).toBe(200);
    expect(recovered.body).toMatchObject({ since: paused.body.endpoint.paused_at, queued: 2, next_cursor: null });
    const got = await receivedAtLeast(path, 3);
    expect(got).toHaveLength(3);
    expect(got.every((g) => g.serviceOk && g.standardOk)).toBe(true);
    const ids = got.map((g) => (JSON.parse(g.body) as { id: string }).id);
    expect(ids.slice(1).sort()).toEqual([first, second].sort());
    expect(ids[0]).toBe(before);
    // Each carries the key its registration's event has for this endpoint: a receiver's dedupe holds.
    const eventIds = await (await registryDb(projectId))
      .prepare("SELECT id, event_id FROM envelopes WHERE project_id = ?")
      .bind(projectId)
      .all<{ id: string; event_id: string }>();
    const eventOf = new Map(eventIds.results.map((r) => [r.id, r.event_id]));
    for (const g of got.slice(1)) {
      const envelopeId = (JSON.parse(g.body) as { id: string }).id;
      expect(g.headers["webhook-id"]).toBe(await idempotencyKey(eventOf.get(envelopeId) as string, ep.id));
    }

    // Asked again, or from before the pause: nothing is queued twice, and what was delivered is not re-sent.
    expect((await recover(owner, ep.id)).body.queued).toBe(0);
    expect((await recover(owner, ep.id, { since: "2020-01-01T00:00:00Z" })).body.queued).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(await received(path)).toHaveLength(3);
  });

  it("walks back a page at a time, newest first, to `since`", async () => {
    const { principal, owner, projectId } = await setup();
    const ep = await endpoint(owner, projectId, `/ok/${crypto.randomUUID()}`, ["delegation.registered"]);
    await owner.call("PATCH", `/api/webhooks/endpoints/${ep.id}`, { active: false });
    const since = Date.now();
    for (let i = 0; i < 5; i++) await register(owner, projectId, principal);
    const row = await orm(await registryDb(projectId))
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, ep.id))
      .get();
    const resumed = { ...(row as typeof webhookEndpoints.$inferSelect), active: true };
    const pages = [];
    let cursor: number | null = null;
    do {
      const page = await recoverPage(orm(await registryDb(projectId)), resumed, since, cursor, Date.now(), 2);
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(pages.map((p) => p.queued)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.nextCursor)).toEqual([3, 1, null]);
  });

  it("is refused for a paused endpoint (409), without a time for a never-paused one (400), and below admin (403)", async () => {
    const { owner, projectId } = await setup();
    const ep = await endpoint(owner, projectId, `/ok/${crypto.randomUUID()}`);
    expect((await recover(owner, ep.id)).body.reason).toBe("invalid_body");
    expect((await recover(owner, ep.id, { since: "2026-01-01T00:00:00Z" })).status).toBe(200);
    expect((await recover(owner, ep.id, { since: "yesterday" })).body.reason).toBe("invalid_body");
    expect((await recover(owner, ep.id, { cursor: -1, since: "2026-01-01T00:00:00Z" })).body.reason).toBe(
      "invalid_body",
    );
    await owner.call("PATCH", `/api/webhooks/endpoints/${ep.id}`, { active: false });
    const paused = await recover(owner, ep.id);
    expect(paused.status).toBe(409);
    expect(paused.body.reason).toBe("endpoint_paused");
    await owner.call("PATCH", `/api/webhooks/endpoints/${ep.id}`, { active: true });
    const member = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: member.address, role: "member" });
    expect((await recover(member, ep.id)).body.reason).toBe("role_forbidden");
    const stranger = await signedIn();
    expect((await recover(stranger, ep.id)).body.reason).toBe("not_found");
  });

  it("is in the OpenAPI document", async () => {
    const res = await (await signedIn()).fetch("/api/openapi");
    const document = (await res.json()) as { paths: Record<string, { post?: unknown }> };
    expect(document.paths["/api/webhooks/endpoints/{id}/recover"]?.post).toBeDefined();
  });
});
