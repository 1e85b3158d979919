// Fleet rate limits (service-spec Limits: per-IP, per-route token buckets; the values are this project's, see
// docs/decisions.md): every route per IP, and every authenticated call per project.
import type { Context } from "hono";
import { rateLimit, takeNamed } from "../../../shared/rate-limit/middleware";
import type { BucketRule } from "../../../shared/rate-limit/token-bucket";
import type { FleetEnv } from "./env";

/** Each fleet route, per client IP. */
export const FLEET_ROUTE_RULE: BucketRule = { capacity: 120, windowMs: 60_000 };
/** All calls touching one project, whoever makes them. */
export const FLEET_PROJECT_RULE: BucketRule = { capacity: 600, windowMs: 60_000 };

export const routeLimit = (bucket: string) =>
  rateLimit({ bucket: `fleet-${bucket}`, rule: FLEET_ROUTE_RULE, failClosed: false });

/** Fails open: when the limiter is down, the per-IP bucket of the route still applies. */
export async function takeProjectToken(c: Context<FleetEnv>, projectId: string): Promise<void> {
  await takeNamed(c.env.RATE_LIMITER, `project|${projectId}`, FLEET_PROJECT_RULE, false);
}
