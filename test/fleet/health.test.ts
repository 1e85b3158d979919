import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PLEDGE_STATUSES } from "../../shared/envelopes/pledge";
import { ADMIN_EVENTS } from "../../workers/fleet/src/admin-log";

describe("fleet worker", () => {
  it("answers /api/health", async () => {
    const res = await SELF.fetch("http://localhost:8788/api/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, service: "fleet" });
  });

  it("answers an unknown route with the error envelope", async () => {
    const res = await SELF.fetch("http://localhost:8788/api/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ ok: false, reason: "not_found" });
  });
});

describe("dashboard config", () => {
  it("tells the dashboard where to sign in, the admin log's event types and the pledge states, from the fleet's own lists", async () => {
    const res = await SELF.fetch("http://localhost:8788/dashboard/config.json");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { auth_origin: string; admin_events: string[]; pledge_states: string[] };
    expect(body.auth_origin).toBe("http://localhost:8787");
    expect(body.admin_events).toEqual([...ADMIN_EVENTS]);
    expect(body.admin_events).toContain("billing.plan_changed");
    expect(body.pledge_states).toEqual([...PLEDGE_STATUSES]);
  });
});
