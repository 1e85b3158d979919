// Load shedding in workerd (issue 47, item 4): a registration past the isolate's gate is refused 503 `overloaded`
// with Retry-After before any work, and nothing of it is stored; D1's own overload and restart errors answer the
// same instead of a 500, on a write (the registration's batch, rolled back whole) and on a read; every registration
// route is behind the gate and says so in the OpenAPI description. Each D1 binding (every registry shard) is wrapped.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { shardBindings } from "../../shared/db/registry-shards";
import { app } from "../../workers/fleet/src/app";
import type { FleetBindings } from "../../workers/fleet/src/env";
import { isRegistration } from "../../workers/fleet/src/overload/shed";
import { freshIp } from "../helpers/browser";
import { action, delegation } from "../helpers/envelopes";
import { FleetClient as Client, FLEET, type FleetClient, signedIn } from "../helpers/fleet";
import { newWallet } from "../helpers/wallet";

const bindings = env as unknown as FleetBindings & Record<string, unknown>;

/** The worker's D1 bindings by name: the auth database and each registry shard. */
const D1_NAMES = [...new Set(["AUTH_DB", ...shardBindings(bindings)])];
const everyD1 = () => D1_NAMES.map((name) => bindings[name] as D1Database);

/** Every D1 binding of the worker, each replaced by `wrap` of it. */
function wrapEveryD1(wrap: (db: D1Database) => D1Database): Partial<FleetBindings> {
  return Object.fromEntries(D1_NAMES.map((name) => [name, wrap(bindings[name] as D1Database)]));
}

/** `db` with its batches (and, with `reads`, every statement's run, first, all and raw) replaced by `fail`. */
function failing(db: D1Database, fail: () => Promise<never>, { reads = false } = {}): D1Database {
  const statement = (s: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(s, {
      get(target, key) {
        if (key === "bind") return (...args: unknown[]) => statement(target.bind(...args));
        if (reads && (key === "run" || key === "first" || key === "all" || key === "raw")) return fail;
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (query: string) => statement(target.prepare(query));
      if (key === "batch") return fail;
      if (key === "withSession") {
        return (c?: string) => failing(target.withSession(c) as unknown as D1Database, fail, { reads });
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** `db` whose batches wait for `held` (and say when the first one arrived). */
function holding(db: D1Database, held: Promise<void>, arrived: () => void): D1Database {
  return new Proxy(db, {
    get(target, key) {
      if (key === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          arrived();
          await held;
          return target.batch(statements);
        };
      }
      if (key === "withSession") {
        return (c?: string) => holding(target.withSession(c) as unknown as D1Database, held, arrived);
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A request to the fleet as `client`, on `changed` bindings. */
function post(client: FleetClient, path: string, body: unknown, changed: Partial<FleetBindings>) {
  return app.request(
    `${FLEET}${path}`,
    {
      method: "POST",
      headers: {
        "cf-connecting-ip": freshIp(),
        "sec-fetch-site": "same-origin",
        "content-type": "application/json",
        cookie: `oc_session=${client.cookie}`,
      },
      body: JSON.stringify(body),
    },
    { ...bindings, ...changed },
  );
}

/** Whether any D1 binding holds the envelope `id` (two names may be one database). */
async function stored(id: string): Promise<boolean> {
  for (const db of everyD1()) {
    const row = await db.prepare("SELECT count(*) AS n FROM envelopes WHERE id = ?").bind(id).first<{ n: number }>();
    if (row?.n) return true;
  }
  return false;
}

/** An owner with a project and a registered delegation, and two fresh actions under it. */
async function ready() {
  const principal = newWallet();
  const agent = newWallet("p2tr");
  const owner = await signedIn(principal.address);
  const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "overload" });
  const projectId = created.body.project.id;
  const grant = await delegation(principal, agent);
  const registered = await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: grant.envelope });
  expect(registered.status).toBe(201);
  return { owner, projectId, first: await action(grant.id, agent), second: await action(grant.id, agent) };
}

describe("the registration gate", () => {
  it("refuses a registration past the bound with 503 overloaded and Retry-After, storing nothing of it", async () => {
    const { owner, projectId, first, second } = await ready();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived = () => {};
    const atBatch = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const changed = { ...wrapEveryD1((db) => holding(db, held, arrived)), OVERLOAD_MAX_IN_FLIGHT: "1" };
    // The first is admitted and held at its write: the isolate is at its bound.
    const pending = post(owner, "/api/actions", { project_id: projectId, envelope: first.envelope }, changed);
    await atBatch;
    const refused = await post(owner, "/api/actions", { project_id: projectId, envelope: second.envelope }, changed);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ ok: false, reason: "overloaded" });
    // Reads are never gated.
    const read = await app.request(
      `${FLEET}/api/projects`,
      { headers: { "cf-connecting-ip": freshIp(), cookie: `oc_session=${owner.cookie}` } },
      { ...bindings, ...changed },
    );
    expect(read.status).toBe(200);
    release();
    expect((await pending).status).toBe(201);
    expect(await stored(second.id)).toBe(false);
    // The gate is open again, and the refused envelope registers as new (nothing of it was half stored).
    const again = await post(owner, "/api/actions", { project_id: projectId, envelope: second.envelope }, changed);
    expect(again.status).toBe(201);
    expect(await stored(second.id)).toBe(true);
  });

  it("gates every registration route, and each one's OpenAPI description names overloaded", async () => {
    const doc = await new Client().call<{ paths: Record<string, Record<string, OpenApiOperation>> }>(
      "GET",
      "/api/openapi",
    );
    const registrations = Object.entries(doc.body.paths).flatMap(([path, ops]) => {
      const registers = ops.post?.responses?.["201"]?.content?.["application/json"]?.schema?.properties?.log_index;
      return registers ? [path] : [];
    });
    expect(registrations.length).toBeGreaterThanOrEqual(10);
    for (const path of registrations) {
      expect(isRegistration("POST", path.replace("{id}", "a".repeat(64))), path).toBe(true);
      expect(doc.body.paths[path]?.post?.responses?.["503"]?.description, path).toContain("overloaded");
    }
  });
});

interface OpenApiOperation {
  responses?: Record<
    string,
    { description?: string; content?: { "application/json"?: { schema?: { properties?: Record<string, unknown> } } } }
  >;
}

describe("D1's own overload and restart errors: 503 overloaded with Retry-After, never a 500", () => {
  it("a registration whose batch D1 refuses as overloaded: Retry-After 2, nothing stored", async () => {
    const { owner, projectId, first } = await ready();
    const overloaded = () => Promise.reject(new Error("D1_ERROR: D1 DB is overloaded. Too many requests queued."));
    const res = await post(
      owner,
      "/api/actions",
      { project_id: projectId, envelope: first.envelope },
      wrapEveryD1((db) => failing(db, overloaded)),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(await res.json()).toEqual({ ok: false, reason: "overloaded" });
    expect(await stored(first.id)).toBe(false);
  });

  it("a read of a database that is restarting (any route): Retry-After 5", async () => {
    const { owner } = await ready();
    const reset = () =>
      Promise.reject(new Error("D1_ERROR: Internal error in D1 DB storage caused object to be reset."));
    const res = await app.request(
      `${FLEET}/api/projects`,
      { headers: { "cf-connecting-ip": freshIp(), cookie: `oc_session=${owner.cookie}` } },
      { ...bindings, ...wrapEveryD1((db) => failing(db, reset, { reads: true })) },
    );
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toEqual({ ok: false, reason: "overloaded" });
  });

  it("any other database failure is still the write's 500 (insert_failed)", async () => {
    const { owner, projectId, first } = await ready();
    const broken = () => Promise.reject(new Error("D1_ERROR: disk I/O error: SQLITE_IOERR"));
    const res = await post(
      owner,
      "/api/actions",
      { project_id: projectId, envelope: first.envelope },
      wrapEveryD1((db) => failing(db, broken)),
    );
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ ok: false, reason: "insert_failed" });
  });
});
