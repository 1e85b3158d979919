// Fleet rate limits (service-spec Limits: per-IP, per-route token buckets; the values are this project's, see
// docs/decisions.md): every route per IP, every authenticated call per project, and refused API tokens per IP.
import type { Context, MiddlewareHandler } from "hono";
import type { Db } from "../../../shared/db/client";
import { AppError } from "../../../shared/errors";
import { clientIpKey } from "../../../shared/http/client-ip";
import { backgroundOf, leaseTogether, rateLimit, takeNamed } from "../../../shared/rate-limit/middleware";
import type { BucketRule } from "../../../shared/rate-limit/token-bucket";
import { noteRefusal } from "./activity/refusals";
import type { RefusalBucket } from "./activity/store";
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

/**
 * API tokens refused per client IP (unknown, revoked, expired, creator no longer an owner): each refusal spends one;
 * once the bucket is found empty, a bearer from that address is refused 429 before it is looked up (review 3,
 * item 11: an unknown token cost a read on every registry shard, without limit). Minted tokens hold 256 random
 * bits, so this bounds the cost of guessing, not its odds; a client with a stale token waits three seconds a try.
 */
export const REFUSED_TOKEN_RULE: BucketRule = { capacity: 20, windowMs: 60_000 };

/** The refused-token bucket of the request's client address. */
export const refusedTokenKey = (c: Context) => `fleet-token-refused|${clientIpKey(c.req.raw.headers)}`;

/**
 * A fleet route's per-address bucket. When the limiter itself fails, a read is served (fails open) and a change is
 * refused, 429 with `Retry-After: 1` (fails closed, RL-07): a limiter that fails because the platform is overloaded
 * must not let a flood of registrations through unlimited while it does (the sustained bench saw one address
 * admitted half again past its rule that way, issue 47). Either way the bucket lives in its object's memory and is
 * leased ahead of need, as before: a restarted object admits at most one bucket more.
 */
export const routeLimit = (bucket: string): MiddlewareHandler => {
  const options = { bucket: `fleet-${bucket}`, rule: FLEET_ROUTE_RULE, durable: false };
  const reads = rateLimit({ ...options, failClosed: false });
  const changes = rateLimit({ ...options, failClosed: true });
  return (c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? reads(c, next) : changes(c, next));
};

/** Fails open: when the limiter is down, a change is still refused by its route's per-IP bucket (`routeLimit`). */
export async function takeProjectToken(c: Context<FleetEnv>, projectId: string, caller: Caller, db: Db): Promise<void> {
  const who = caller.kind === "token" ? `token:${caller.tokenId}` : `account:${caller.accountId}`;
  const share = `project-caller|${projectId}|${who}`;
  const project = `project|${projectId}`;
  const background = backgroundOf(c);
  /** A refusal is counted for the project's activity (issue 30), then answered as ever. */
  const take = async (key: string, rule: BucketRule, bucket: RefusalBucket) => {
    try {
      await takeNamed(c.env.RATE_LIMITER, key, rule, false, background);
    } catch (err) {
      if (err instanceof AppError && err.reason === "rate_limited") noteRefusal(c.executionCtx, db, projectId, bucket);
      throw err;
    }
  };
  // Leases for both that this isolate lacks are asked for at once (one round trip, issue 31's tail); then the
  // caller's own share first: one caller running flat out empties its share, never the project's bucket.
  await leaseTogether(
    c.env.RATE_LIMITER,
    [
      [share, FLEET_CALLER_SHARE_RULE],
      [project, FLEET_PROJECT_RULE],
    ],
    false,
  );
  await take(share, FLEET_CALLER_SHARE_RULE, "caller");
  await take(project, FLEET_PROJECT_RULE, "project");
}
