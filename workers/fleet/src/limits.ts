// Fleet rate limits (service-spec Limits: per-IP, per-route token buckets; the values are this project's, see
// docs/decisions.md): every route per IP, and every authenticated call per project.
import type { Context } from "hono";
import { AppError } from "../../../shared/errors";
import { rateLimit } from "../../../shared/rate-limit/middleware";
import type { BucketDecision, BucketRule } from "../../../shared/rate-limit/token-bucket";
import type { FleetEnv } from "./env";

/** Each fleet route, per client IP. */
export const FLEET_ROUTE_RULE: BucketRule = { capacity: 120, windowMs: 60_000 };
/** All calls touching one project, whoever makes them. */
export const FLEET_PROJECT_RULE: BucketRule = { capacity: 600, windowMs: 60_000 };

export const routeLimit = (bucket: string) =>
  rateLimit({ bucket: `fleet-${bucket}`, rule: FLEET_ROUTE_RULE, failClosed: false });

export async function takeProjectToken(c: Context<FleetEnv>, projectId: string): Promise<void> {
  const ns = c.env.RATE_LIMITER;
  let decision: BucketDecision;
  try {
    decision = await ns.get(ns.idFromName(`project|${projectId}`)).take(FLEET_PROJECT_RULE);
  } catch {
    return; // fail open: the per-IP bucket still applies
  }
  if (!decision.allowed) {
    throw new AppError("rate_limited", { headers: { "Retry-After": String(Math.ceil(decision.retryAfterMs / 1000)) } });
  }
}
