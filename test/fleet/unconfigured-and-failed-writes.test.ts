// The table's 503 "not configured" reasons and 500 write-failure reasons, each produced by the fleet worker: a
// binding or secret missing (the worker deployed without it), and a database that refuses writes (a platform
// fault: the D1 binding below fails every write, as an I/O error would, and answers reads). Nothing is stored
// half-way, and the answer names what failed without the database's own message.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/fleet/src/app";
import type { FleetBindings } from "../../workers/fleet/src/env";
import { billingOf, completeCardCheckout, type SignedStripeEvent } from "../helpers/billing";
import { freshIp } from "../helpers/browser";
import { action, delegation } from "../helpers/envelopes";
import { FLEET, type FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { sessionAnswer } from "../helpers/fleet-app";
import { newWallet } from "../helpers/wallet";

const IO_ERROR = "D1_ERROR: disk I/O error: SQLITE_IOERR";

/** The real D1, except that every write (a batch, or a statement's run) fails; so does a session made from it. */
function refusingWrites(db: D1Database): D1Database {
  const statement = (s: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(s, {
      get(target, key) {
        if (key === "bind") return (...args: unknown[]) => statement(target.bind(...args));
        if (key === "run") return () => Promise.reject(new Error(IO_ERROR));
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (query: string) => statement(target.prepare(query));
      if (key === "batch") return () => Promise.reject(new Error(IO_ERROR));
      if (key === "withSession") {
        return (constraint?: string) => refusingWrites(target.withSession(constraint) as unknown as D1Database);
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const bindings = env as unknown as FleetBindings;

async function as(client: FleetClient, method: string, path: string, body: unknown, changed: Partial<FleetBindings>) {
  const res = await sessionAnswer(client, method, path, body, changed);
  return { status: res.status, body: (await res.json()) as { reason?: string; detail?: string } };
}

describe("not configured: 503 with the table's reason", () => {
  it("no D1 binding: database_not_configured", async () => {
    const { owner } = await ownerWithProject();
    const res = await as(owner, "GET", "/api/projects", undefined, { DB: undefined as unknown as D1Database });
    expect(res).toMatchObject({ status: 503, body: { reason: "database_not_configured" } });
  });

  it("no CRON_SECRET: cron_secret_unset", async () => {
    const res = await app.request(
      `${FLEET}/api/cron/reconcile`,
      { method: "POST", headers: { authorization: "Bearer anything", "cf-connecting-ip": freshIp() } },
      { ...bindings, CRON_SECRET: undefined },
    );
    expect(res.status).toBe(503);
    expect(((await res.json()) as { reason: string }).reason).toBe("cron_secret_unset");
  });

  it("no FLEET_SIGNING_KEY: the audit export answers signing_key_unset", async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await as(owner, "GET", `/api/audit/export?project_id=${projectId}`, undefined, {
      FLEET_SIGNING_KEY: undefined,
    });
    expect(res).toMatchObject({ status: 503, body: { reason: "signing_key_unset" } });
  });
});

describe("a database that refuses writes: 500 with the write's reason, nothing stored", () => {
  it("a registration: insert_failed", async () => {
    const principal = newWallet();
    const agent = newWallet("p2tr");
    const owner = await signedIn(principal.address);
    const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "faults" });
    const projectId = created.body.project.id;
    const grant = await delegation(principal, agent);
    const first = await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: grant.envelope });
    expect(first.status).toBe(201);
    const one = await action(grant.id, agent);
    const res = await as(
      owner,
      "POST",
      "/api/actions",
      { project_id: projectId, envelope: one.envelope },
      {
        DB: refusingWrites(env.DB),
      },
    );
    expect(res).toEqual({ status: 500, body: { ok: false, reason: "insert_failed" } });
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM envelopes WHERE project_id = ? AND id = ?")
      .bind(projectId, one.id)
      .first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });

  it("a token rename (a change with its admin-log line): update_failed, neither written", async () => {
    const { owner, projectId } = await ownerWithProject();
    const minted = await owner.call<{ token: { id: string } }>("POST", "/api/tokens", {
      project_id: projectId,
      name: "before",
    });
    const res = await as(
      owner,
      "PATCH",
      `/api/tokens/${minted.body.token.id}`,
      { name: "after" },
      {
        DB: refusingWrites(env.DB),
      },
    );
    expect(res).toEqual({ status: 500, body: { ok: false, reason: "update_failed" } });
    const row = await env.DB.prepare("SELECT name FROM api_tokens WHERE id = ?")
      .bind(minted.body.token.id)
      .first<{ name: string }>();
    expect(row?.name).toBe("before");
  });

  it("a processor's event: apply_failed (the processor retries it), the plan unchanged", async () => {
    const { owner, projectId } = await ownerWithProject();
    const checkout = await owner.call<{ url: string }>("POST", "/api/checkout/card", {
      project_id: projectId,
      tier: "pro",
    });
    const [completed] = (await completeCardCheckout(checkout.body.url)) as [SignedStripeEvent];
    const res = await app.request(
      `${FLEET}/api/billing/webhooks/stripe`,
      {
        method: "POST",
        headers: { "stripe-signature": completed.signature, "cf-connecting-ip": freshIp() },
        body: completed.body,
      },
      { ...bindings, DB: refusingWrites(env.DB) },
    );
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ ok: false, reason: "apply_failed" });
    expect((await billingOf(owner, projectId)).plan).toBe("community");
  });
});
