// Fleet rate limits (service-spec Limits: per-IP, per-route token buckets; the values are this project's, see
// docs/decisions.md): every route per IP, and every authenticated call per project.
import type { Context } from "hono";
import { rateLimit, takeNamed } from "../../../shared/rate-limit/middleware";
import type { BucketRule } from "../../../shared/rate-limit/token-bucket";
import type { Caller, FleetEnv } from "./env";

/** Each fleet route, per client IP. */
export const FLEET_ROUTE_RULE: BucketRule = { capacity: 120, windowMs: 60_000 };
/** All calls touching one project, whoever makes them. */
export const FLEET_PROJECT_RULE: BucketRule = { capacity: 600, windowMs: 60_000 };
/**
 * One caller's share of its project's bucket (a session's account, or a token): a caller at full speed is stopped
 * by its own share while the project keeps three quarters for everyone else (security review item 8).
 */
export const FLEET_CALLER_SHARE_RULE: BucketRule = { capacity: 150, windowMs: 60_000 };

export const routeLimit = (bucket: string) =>
  rateLimit({ bucket: `fleet-${bucket}`, rule: FLEET_ROUTE_RULE, failClosed: false });

/** Fails open: when the limiter is down, the per-IP bucket of the route still applies. */
export async function takeProjectToken(c: Context<FleetEnv>, projectId: string, caller: Caller): Promise<void> {
  const who = caller.kind === "token" ? `token:${caller.tokenId}` : `account:${caller.accountId}`;
  // The caller's own share first: one caller running flat out empties its share, never the project's bucket.
  await takeNamed(c.env.RATE_LIMITER, `project-caller|${projectId}|${who}`, FLEET_CALLER_SHARE_RULE, false);
  await takeNamed(c.env.RATE_LIMITER, `project|${projectId}`, FLEET_PROJECT_RULE, false);
}
