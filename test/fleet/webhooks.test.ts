// Signed webhooks: endpoints, fan-out on registration, verification by stock libraries at a real receiver, the
// retry schedule walked with Durable Object alarms, the delivery log, manual retry, paused and unsubscribed
// endpoints, failing, hanging and refusing receivers.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/fleet/src/app";
import { delegation } from "../helpers/envelopes";
import { FleetClient, signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

const RECEIVER = env.TEST_RECEIVER as string;
type Received = {
  path: string;
  headers: Record<string, string>;
  body: string;
  serviceOk: boolean;
  standardOk: boolean;
};
type Delivery = {
  id: string;
  state: string;
  attempt_count: number;
  status_code: number | null;
  error_message: string | null;
  next_retry_at: string | null;
  idempotency_key: string;
};

async function received(path: string): Promise<Received[]> {
  return (await (await fetch(`${RECEIVER}/__admin/received?path=${encodeURIComponent(path)}`)).json()) as Received[];
}

/** Polls at most about 100 times, so a long wait stays inside the route's 120-a-minute limit. */
async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, Math.max(50, ms / 100)));
  }
}

async function setup() {
  const principal = newWallet();
  const owner = await signedIn(principal.address);
  const res = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "hooks" });
  return { principal, owner, projectId: res.body.project.id };
}

async function endpoint(
  owner: FleetClient,
  projectId: string,
  path: string,
  eventTypes = ["delegation.registered"],
  active = true,
) {
  const res = await owner.call<{ endpoint: { id: string }; secret: string }>("POST", "/api/webhooks/endpoints", {
    project_id: projectId,
    url: `${RECEIVER}${path}`,
    event_types: eventTypes,
    active,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await fetch(`${RECEIVER}/__admin/secret`, { method: "PUT", body: JSON.stringify({ path, secret: res.body.secret }) });
  return res.body;
}

async function registerDelegation(owner: FleetClient, projectId: string, principal = newWallet()) {
  const d = await delegation(principal, newWallet());
  const res = await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: d.envelope });
  expect(res.status).toBe(201);
  return d;
}

async function deliveries(owner: FleetClient, projectId: string): Promise<Delivery[]> {
  const res = await owner.call<{ deliveries: Delivery[] }>("GET", `/api/webhooks/deliveries?project_id=${projectId}`);
  // A refused poll (429 when a test polls for long) reads as nothing yet, never as a crash.
  return res.status === 200 ? res.body.deliveries : [];
}

describe("webhook endpoints", () => {
  it("shows the whsec_ secret once; lists and reads never include it; refuses private and non-https URLs", async () => {
    const { owner, projectId } = await setup();
    const created = await endpoint(owner, projectId, `/ok/${crypto.randomUUID()}`);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await owner.call("GET", `/api/webhooks/endpoints?project_id=${projectId}`);
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
    // (Loopback itself is allowed here: the tests set WEBHOOK_ALLOW_LOOPBACK, as npm start does.)
    for (const url of [
      "http://example.com/hook",
      "https://10.0.0.5/hook",
      "https://169.254.169.254/latest",
      "https://[fd00::1]/x",
      "https://167772161/x",
    ]) {
      const res = await owner.call("POST", "/api/webhooks/endpoints", {
        project_id: projectId,
        url,
        event_types: ["*"],
      });
      expect(res.status, url).toBe(400);
      expect(res.body.reason).toBe("invalid_body");
    }
  });

  it("answers 503 webhook_master_key_unset when the master key is missing", async () => {
    const { owner, projectId } = await setup();
    const res = await app.request(
      "http://localhost:8788/api/webhooks/endpoints",
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          cookie: `oc_session=${owner.cookie}`,
          "sec-fetch-site": "same-origin",
        },
        body: JSON.stringify({ project_id: projectId, url: `${RECEIVER}/ok/x`, event_types: ["*"] }),
      },
      { ...env, WEBHOOK_MASTER_KEY: undefined },
    );
    expect(res.status).toBe(503);
    expect(((await res.json()) as { reason: string }).reason).toBe("webhook_master_key_unset");
  });
});

describe("deliveries", () => {
  it("delivers a registration, signed so the stock verifiers accept it over the raw bytes", async () => {
    const { principal, owner, projectId } = await setup();
    const path = `/ok/${crypto.randomUUID()}`;
    await endpoint(owner, projectId, path);
    const d = await registerDelegation(owner, projectId, principal);
    const [got] = await waitFor(async () => ((await received(path)).length ? received(path) : undefined));
    expect(got?.serviceOk).toBe(true);
    expect(got?.standardOk).toBe(true);
    expect(got?.headers["x-service-event"]).toBe("delegation.registered");
    expect(got?.headers["x-service-payload-sha256"]).toMatch(/^[0-9a-f]{64}$/);
    expect(got?.headers["x-service-attempt"]).toBeUndefined();
    expect(JSON.parse(got?.body ?? "{}")).toMatchObject({
      id: d.id,
      project_id: projectId,
      kind: "agent-delegation",
      envelope: d.envelope,
    });
    const [log] = await waitFor(async () => {
      const rows = await deliveries(owner, projectId);
      return rows[0]?.state === "succeeded" ? rows : undefined;
    });
    expect(log).toMatchObject({ attempt_count: 1, status_code: 200, next_retry_at: null });
    // A tampered body fails the receiver's stock verification.
    const tamperedPath = path;
    await fetch(`${RECEIVER}${tamperedPath}`, {
      method: "POST",
      headers: got?.headers as Record<string, string>,
      body: (got?.body ?? "").replace(d.id, "0".repeat(64)),
    });
    const all = await received(path);
    expect(all[all.length - 1]).toMatchObject({ serviceOk: false, standardOk: false });
  });

  it("never delivers an unsubscribed type, and skips a paused endpoint", async () => {
    const { principal, owner, projectId } = await setup();
    const onlyActions = `/ok/${crypto.randomUUID()}`;
    const paused = `/ok/${crypto.randomUUID()}`;
    await endpoint(owner, projectId, onlyActions, ["action.registered"]);
    await endpoint(owner, projectId, paused, ["delegation.registered"], false);
    await registerDelegation(owner, projectId, principal);
    await new Promise((r) => setTimeout(r, 300));
    expect(await received(onlyActions)).toEqual([]);
    expect(await received(paused)).toEqual([]);
    expect(await deliveries(owner, projectId)).toEqual([]);
  });

  it("a project without an active endpoint keeps no event: nothing waits, nothing is sent later", async () => {
    const { principal, owner, projectId } = await setup();
    const before = await registerDelegation(owner, projectId, principal);
    const events = async (id: string) =>
      (await registryDb(projectId))
        .prepare("SELECT fanned_out_at FROM outbox WHERE envelope_id = ? AND project_id = ?")
        .bind(id, projectId)
        .all<{ fanned_out_at: number | null }>();
    // Nothing to deliver, so no event row: no sweep has anything to route.
    expect((await events(before.id)).results).toEqual([]);
    // An endpoint made afterwards receives the events from its creation on, not the earlier one.
    const path = `/ok/${crypto.randomUUID()}`;
    await endpoint(owner, projectId, path);
    const after = await registerDelegation(owner, projectId, principal);
    const got = await waitFor(async () => ((await received(path)).length ? received(path) : undefined));
    expect(got.map((r) => JSON.parse(r.body).id)).toEqual([after.id]);
    const rows = await deliveries(owner, projectId);
    expect(rows).toHaveLength(1);
  });

  it("retries a failing receiver on schedule (1 m, 5 m, 30 m, 2 h, 8 h) and stops after attempt 6, same idempotency key", async () => {
    const { principal, owner, projectId } = await setup();
    const path = `/fail/${crypto.randomUUID()}`;
    const { endpoint: ep } = await endpoint(owner, projectId, path);
    await registerDelegation(owner, projectId, principal);
    const stub = env.WEBHOOK_DISPATCHER.get(env.WEBHOOK_DISPATCHER.idFromName(ep.id));
    const delays = [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000];
    for (let attempt = 1; attempt <= 6; attempt++) {
      const row = await waitFor(async () => {
        const [r] = await deliveries(owner, projectId);
        return r && r.attempt_count === attempt && r.state !== "in_flight" ? r : undefined;
      });
      expect(row.error_message).toBe("http_500");
      if (attempt < 6) {
        expect(row.state).toBe("pending");
        const delay = Date.parse(row.next_retry_at as string) - Date.now();
        const expected = delays[attempt - 1] as number;
        expect(delay).toBeGreaterThan(expected * 0.89 - 2000);
        expect(delay).toBeLessThan(expected * 1.11);
        // Time passes: the retry is due now, and the alarm fires.
        await (await registryDb(projectId))
          .prepare("UPDATE webhook_deliveries SET next_retry_at = ? WHERE id = ?")
          .bind(Date.now() - 1, row.id)
          .run();
        await runInDurableObject(stub, (_i, state) => state.storage.setAlarm(Date.now()));
        await runDurableObjectAlarm(stub);
      } else {
        expect(row).toMatchObject({ state: "failed", next_retry_at: null });
      }
    }
    const got = await received(path);
    expect(got).toHaveLength(6);
    expect(new Set(got.map((g) => g.headers["webhook-id"])).size).toBe(1);
    expect(got.map((g) => g.headers["x-service-attempt"] ?? "1")).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(got.slice(1).every((g) => g.headers["x-service-redelivery"] === "true")).toBe(true);
    expect(got.every((g) => g.serviceOk && g.standardOk)).toBe(true);
  });

  it("records a hanging receiver as a timeout and a refusing one with the connection error", async () => {
    const { principal, owner, projectId } = await setup();
    await endpoint(owner, projectId, `/hang/${crypto.randomUUID()}`);
    const refused = await owner.call<{ endpoint: { id: string } }>("POST", "/api/webhooks/endpoints", {
      project_id: projectId,
      url: "http://127.0.0.1:1/refused",
      event_types: ["delegation.registered"],
    });
    expect(refused.status).toBe(201);
    await registerDelegation(owner, projectId, principal);
    const rows = await waitFor(async () => {
      const r = await deliveries(owner, projectId);
      return r.length === 2 && r.every((x) => x.attempt_count === 1 && x.state === "pending") ? r : undefined;
    }, 15_000);
    const messages = rows.map((r) => r.error_message).sort();
    expect(messages).toContain("timeout");
    expect(messages.some((m) => m !== "timeout" && m !== null && !m.startsWith("http_"))).toBe(true);
  }, 20_000);

  it("manual retry: runs at once with X-Service-Manual-Retry; 409 already_succeeded, 409 endpoint_paused, 404 endpoint_not_in_project", async () => {
    const { principal, owner, projectId } = await setup();
    const failing = `/fail/${crypto.randomUUID()}`;
    const { endpoint: ep } = await endpoint(owner, projectId, failing);
    await registerDelegation(owner, projectId, principal);
    const [row] = await waitFor(async () => {
      const r = await deliveries(owner, projectId);
      return r[0]?.attempt_count === 1 && r[0].state === "pending" ? r : undefined;
    });
    const retried = await owner.call<{ delivery: Delivery }>("POST", `/api/webhooks/deliveries/${row?.id}/retry`, {
      project_id: projectId,
    });
    expect(retried.body.delivery.attempt_count).toBe(2);
    const got = await received(failing);
    expect(got[got.length - 1]?.headers["x-service-manual-retry"]).toBe("true");
    // Another project of the same owner: the delivery's endpoint is not in it.
    const other = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "other" });
    const wrong = await owner.call("POST", `/api/webhooks/deliveries/${row?.id}/retry`, {
      project_id: other.body.project.id,
    });
    expect(wrong.status).toBe(404);
    expect(wrong.body.reason).toBe("endpoint_not_in_project");
    await owner.call("PATCH", `/api/webhooks/endpoints/${ep.id}`, { active: false });
    const paused = await owner.call("POST", `/api/webhooks/deliveries/${row?.id}/retry`, { project_id: projectId });
    expect(paused.status).toBe(409);
    expect(paused.body.reason).toBe("endpoint_paused");
    // A receiver that accepts: succeeded, then retry is refused.
    await owner.call("PATCH", `/api/webhooks/endpoints/${ep.id}`, {
      active: true,
      url: `${RECEIVER}/ok/${crypto.randomUUID()}`,
    });
    const ok = await owner.call<{ delivery: Delivery }>("POST", `/api/webhooks/deliveries/${row?.id}/retry`, {
      project_id: projectId,
    });
    expect(ok.body.delivery.state).toBe("succeeded");
    const done = await owner.call("POST", `/api/webhooks/deliveries/${row?.id}/retry`, { project_id: projectId });
    expect(done.status).toBe(409);
    expect(done.body.reason).toBe("already_succeeded");
  });

  it("manual retry needs no body (the spec's route): the project comes from the delivery; strangers get 404", async () => {
    const { principal, owner, projectId } = await setup();
    await endpoint(owner, projectId, `/fail/${crypto.randomUUID()}`);
    await registerDelegation(owner, projectId, principal);
    const [row] = await waitFor(async () => {
      const r = await deliveries(owner, projectId);
      return r[0]?.attempt_count === 1 && r[0].state === "pending" ? r : undefined;
    });
    const bare = await owner.fetch(`/api/webhooks/deliveries/${row?.id}/retry`, { method: "POST" });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { delivery: Delivery }).delivery.attempt_count).toBe(2);
    // A body that agrees is accepted too (the dashboard sends one); malformed JSON is still refused.
    const agreeing = await owner.call("POST", `/api/webhooks/deliveries/${row?.id}/retry`, { project_id: projectId });
    expect(agreeing.status).toBe(200);
    const malformed = await owner.fetch(`/api/webhooks/deliveries/${row?.id}/retry`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(((await malformed.json()) as { reason: string }).reason).toBe("malformed_json");
    // Someone outside the project: 404 not_found, with or without a body.
    const stranger = await signedIn();
    const refused = await stranger.fetch(`/api/webhooks/deliveries/${row?.id}/retry`, { method: "POST" });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { reason: string }).reason).toBe("not_found");
  });

  it("FLT-04: a dispatcher whose alarm was lost is re-armed by the reconciler, and the due retry goes out", async () => {
    const { principal, owner, projectId } = await setup();
    const { endpoint: ep } = await endpoint(owner, projectId, `/fail/${crypto.randomUUID()}`);
    await registerDelegation(owner, projectId, principal);
    const [row] = await waitFor(async () => {
      const r = await deliveries(owner, projectId);
      return r[0]?.attempt_count === 1 && r[0].state === "pending" ? r : undefined;
    });
    const stub = env.WEBHOOK_DISPATCHER.get(env.WEBHOOK_DISPATCHER.idFromName(ep.id));
    await runInDurableObject(stub, (_instance, state) => state.storage.deleteAlarm());
    await (await registryDb(projectId))
      .prepare("UPDATE webhook_deliveries SET next_retry_at = ? WHERE id = ?")
      .bind(Date.now() - 1, row?.id)
      .run();
    const res = await new FleetClient().fetch("/api/cron/reconcile", {
      method: "POST",
      fetchMetadata: false,
      headers: { authorization: "Bearer test-cron-secret" },
    });
    expect(((await res.json()) as { rearmed: number }).rearmed).toBeGreaterThanOrEqual(1);
    await waitFor(async () => ((await deliveries(owner, projectId))[0]?.attempt_count === 2 ? true : undefined));
  });

  it("sends test.ping to one endpoint", async () => {
    const { owner, projectId } = await setup();
    const path = `/ok/${crypto.randomUUID()}`;
    const { endpoint: ep } = await endpoint(owner, projectId, path, ["delegation.registered"]);
    expect((await owner.call("POST", `/api/webhooks/endpoints/${ep.id}/test`)).status).toBe(201);
    const [got] = await waitFor(async () => ((await received(path)).length ? received(path) : undefined));
    expect(got?.headers["x-service-event"]).toBe("test.ping");
    expect(got?.serviceOk).toBe(true);
  });
});
