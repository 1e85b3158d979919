// Per-IP, per-route rate limiting at the edge: asks the bucket's Durable Object, answers 429 `rate_limited` with
// Retry-After, and sets the IETF RateLimit headers on every answer. When the limiter itself fails, auth routes
// fail closed (refuse) and read routes fail open (serve): a broken limiter must not open a brute-force window,
// nor take the public read API down.
import type { MiddlewareHandler } from "hono";
import { AppError } from "../errors";
import { clientIpKey } from "../http/client-ip";
import type { RateLimiter } from "./rate-limiter";
import type { BucketDecision, BucketRule } from "./token-bucket";

export interface RateLimitOptions {
  /** Bucket name: the route it guards. */
  bucket: string;
  rule: BucketRule;
  failClosed: boolean;
}

type LimiterEnv = { Bindings: { RATE_LIMITER: DurableObjectNamespace<RateLimiter> } };

function headers(rule: BucketRule, decision: BucketDecision): Record<string, string> {
  const windowSeconds = Math.round(rule.windowMs / 1000);
  return {
    "RateLimit-Policy": `${rule.capacity};w=${windowSeconds}`,
    RateLimit: `limit=${rule.capacity}, remaining=${decision.remaining}, reset=${Math.ceil(decision.resetMs / 1000)}`,
  };
}

/**
 * One token from the bucket named `key`. Denied: 429 rate_limited with Retry-After and RateLimit headers. When the
 * limiter itself fails: 429 when `failClosed`, otherwise undefined (the request goes on unlimited).
 */
export async function takeNamed(
  ns: DurableObjectNamespace<RateLimiter>,
  key: string,
  rule: BucketRule,
  failClosed = true,
): Promise<BucketDecision | undefined> {
  let decision: BucketDecision;
  try {
    decision = await ns.get(ns.idFromName(key)).take(rule);
  } catch (err) {
    console.error("rate limiter unavailable", { bucket: key.split("|")[0], error: String(err) });
    if (failClosed) throw new AppError("rate_limited", { headers: { "Retry-After": "1" } });
    return undefined;
  }
  if (!decision.allowed) {
    throw new AppError("rate_limited", {
      headers: { "Retry-After": String(Math.ceil(decision.retryAfterMs / 1000)), ...headers(rule, decision) },
    });
  }
  return decision;
}

export function rateLimit(options: RateLimitOptions): MiddlewareHandler<LimiterEnv> {
  return async (c, next) => {
    const key = `${options.bucket}|${clientIpKey(c.req.raw.headers)}`;
    const decision = await takeNamed(c.env.RATE_LIMITER, key, options.rule, options.failClosed);
    await next();
    if (decision) for (const [name, value] of Object.entries(headers(options.rule, decision))) c.header(name, value);
  };
}
