// Public fleet routes: the deep health check (D1, KV and the Durable Object namespace answer), the webhook event
// catalogue, and /api/auth/* answered by the auth worker (the fleet host shares the cookie and its sessions).
import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { SESSION_ROUTES } from "../../../../shared/auth/session-routes";
import { orm } from "../../../../shared/db/client";
import { AppError } from "../../../../shared/errors";
import { forwardRequest } from "../../../../shared/http/forward";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { limiterFor } from "../../../../shared/rate-limit/shards";
import { routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { shardsOf } from "../registry/shards";

export const publicRoutes = routeGroup<FleetEnv>();

/** Event types (service-spec Events): the first four are the subscribable catalogue, all eight are emitted. */
export const WEBHOOK_EVENTS = [
  { type: "delegation.registered", description: "a delegation (single or federation) is accepted" },
  { type: "subdelegation.registered", description: "a sub-delegation is accepted" },
  { type: "action.registered", description: "an action is accepted, once per ingested action" },
  { type: "revocation.registered", description: "a revocation is accepted; the delegation becomes revoked" },
  { type: "pledge.registered", description: "a pledge is registered" },
  { type: "pledge.outcome", description: "an outcome is registered, including reconciler-emitted expired_unresolved" },
  { type: "pledge.abandoned", description: "an abandonment is registered" },
  { type: "test.ping", description: "test delivery" },
] as const;

async function probe(check: () => Promise<unknown>): Promise<"ok" | "down"> {
  try {
    await check();
    return "ok";
  } catch {
    return "down";
  }
}

/** The deep health check's take: a bucket it can never empty. */
const PROBE_RULE = { capacity: 1e9, windowMs: 1000 };

publicRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/health/deep",
    summary: "Health of the storage bindings: D1, KV, Durable Objects",
    middleware: [routeLimit("health-deep")],
    responses: {
      200: json(z.object({ ok: z.literal(true), checks: z.record(z.string(), z.literal("ok")) }), "All answer"),
      ...errorResponses("dependency_unavailable"),
    },
  }),
  async (c) => {
    const ns = c.env.RATE_LIMITER;
    const checks = {
      // Every registry database (a shard down is the registry down for its projects).
      d1: await probe(() => Promise.all(shardsOf(c.env).map((shard) => orm(shard.db).run(sql`select 1`)))),
      kv: await probe(() => c.env.KV.get("health:probe")),
      durable_objects: await probe(() => limiterFor(ns, "health|probe").take("health|probe", PROBE_RULE)),
    };
    const down = Object.entries(checks).filter(([, v]) => v === "down");
    if (down.length > 0) throw new AppError("dependency_unavailable", { detail: down.map(([k]) => k).join(", ") });
    c.header("Cache-Control", "no-store");
    return c.json({ ok: true as const, checks: checks as Record<string, "ok"> }, 200);
  },
);

publicRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/webhook-events",
    summary: "The webhook event types",
    middleware: [routeLimit("webhook-events")],
    responses: {
      200: json(
        z.object({ ok: z.literal(true), events: z.array(z.object({ type: z.string(), description: z.string() })) }),
        "The catalogue",
      ),
    },
  }),
  (c) => c.json({ ok: true as const, events: WEBHOOK_EVENTS.map((e) => ({ ...e })) }, 200),
);

// The session endpoints live on the auth worker (it holds the signing key that logout=current needs). Described
// here from the auth worker's own definitions, answered there: every method goes through, so its 405 stands.
for (const route of SESSION_ROUTES) {
  publicRoutes.openAPIRegistry.registerPath(route);
  publicRoutes.all(route.path, (c) => forwardRequest(c.env.AUTH, c.req.raw));
}
