// Per-IP, per-route rate limiting at the edge: spends tokens leased from the bucket's Durable Object (lease.ts),
// answers 429 `rate_limited` with Retry-After, and sets the IETF RateLimit headers on every answer. When the limiter
// itself fails, auth routes fail closed (refuse) and read routes fail open (serve): a broken limiter must not open a
// brute-force window, nor take the public read API down.
import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "../errors";
import { setAnswerHeader } from "../http/answer-header";
import { clientIpKey } from "../http/client-ip";
import { errorFields } from "../http/request-line";
import { logEvent } from "../http/request-log";
import { type Admission, LEASE_WANT, LeaseBook } from "./lease";
import type { RateLimiter } from "./rate-limiter";
import { limiterFor } from "./shards";
import type { BucketRule } from "./token-bucket";

export interface RateLimitOptions {
  /** Bucket name: the route it guards. */
  bucket: string;
  rule: BucketRule;
  failClosed: boolean;
  /**
   * Whether the bucket is written through to its object's storage (survives the object's restart); by default, a
   * bucket that fails closed is. A bucket kept in memory only is leased ahead of need (`renewDue`).
   */
  durable?: boolean;
}

type LimiterEnv = { Bindings: { RATE_LIMITER: DurableObjectNamespace<RateLimiter> } };

/** This isolate's leases, made on first use: one book for every bucket the isolate limits. */
let book: LeaseBook | undefined;
/**
 * One lease call, made by the request that needs it, unless another request's call of the same bucket is in
 * flight: then this one waits on its own timer and reads the book again. Requests never await each other's
 * promises: in Workers a request that awaits a promise another request's I/O will settle has no I/O of its own,
 * and the runtime cancels it as hung (the registration bench found this at 50 connections). What they share is the
 * book, plain data: tokens any call brings back serve whichever request takes them first.
 */
async function leaseOnce(
  ns: DurableObjectNamespace<RateLimiter>,
  leases: LeaseBook,
  key: string,
  rule: BucketRule,
  durable: boolean,
  waited: number,
) {
  if (!leases.begin(key, Date.now())) {
    // 1, 2, 4, 8 ms, then 8 ms: a call takes a few ms, and many waiters waking every ms would cost more CPU than it.
    await new Promise((resolve) => setTimeout(resolve, Math.min(8, 2 ** waited)));
    return;
  }
  try {
    const giveBack = leases.release(key);
    const granted = await limiterFor(ns, key).lease(key, rule, LEASE_WANT, giveBack, durable);
    leases.record(key, granted, Date.now());
  } finally {
    leases.end(key);
  }
}

/** The log line of a lease call that failed: the route bucket it was for, and the error's fields. */
function limiterUnavailable(key: string, err: unknown): void {
  logEvent(undefined, "rate_limiter_unavailable", { bucket: key.split("|")[0], ...errorFields(err) }, "error");
}

/** Keeps a promise's work alive past the answer (the request's `waitUntil`). */
export type Background = (work: Promise<unknown>) => void;

/** The request's `waitUntil` through Hono, or undefined where the context has none (a bare `app.request`). */
export function backgroundOf(c: Context): Background | undefined {
  try {
    const ctx = c.executionCtx;
    return (work) => ctx.waitUntil(work);
  } catch {
    return undefined;
  }
}

/**
 * The next lease of a bucket kept in memory, asked for while the current one still has tokens (`renewDue`),
 * from the request's background: the tokens still held are kept (none handed back), the new ones add to them. A
 * failure is logged; the next request that finds the lease spent asks as ever.
 */
async function renewAhead(ns: DurableObjectNamespace<RateLimiter>, leases: LeaseBook, key: string, rule: BucketRule) {
  if (!leases.begin(key, Date.now())) return;
  try {
    leases.record(key, await limiterFor(ns, key).lease(key, rule, LEASE_WANT, 0, false), Date.now());
  } catch (err) {
    limiterUnavailable(key, err);
  } finally {
    leases.end(key);
  }
}

/**
 * Lease calls for those of `buckets` this isolate can answer nothing for, made at once: a request that takes
 * several buckets in turn (a project caller's share, then the project) then waits one round trip, not one per
 * bucket. Leasing spends nothing: the takes that follow, in their order, decide. A failure is left to them.
 */
export async function leaseTogether(
  ns: DurableObjectNamespace<RateLimiter>,
  buckets: readonly (readonly [key: string, rule: BucketRule])[],
  failClosed: boolean,
): Promise<void> {
  book ??= new LeaseBook();
  const leases = book;
  const now = Date.now();
  const needed = buckets.filter(([key]) => !leases.holds(key, now) && !leases.calling(key, now));
  if (needed.length < 2) return;
  await Promise.all(
    needed.map(([key, rule]) => leaseOnce(ns, leases, key, rule, failClosed, 0).catch(() => undefined)),
  );
}

/** The IETF RateLimit-Policy header's value for a rule: the same on every answer of the route. */
export function rateLimitPolicy(rule: BucketRule): string {
  return `${rule.capacity};w=${Math.round(rule.windowMs / 1000)}`;
}

/** The IETF RateLimit header's value for one decision. */
export function rateLimitValue(rule: BucketRule, decision: Pick<Admission, "remaining" | "resetMs">): string {
  return `limit=${rule.capacity}, remaining=${decision.remaining}, reset=${Math.ceil(decision.resetMs / 1000)}`;
}

/** The IETF RateLimit headers of a decision, as name-value pairs (a Response can take them in its constructor). */
export function rateLimitHeaders(
  rule: BucketRule,
  decision: Pick<Admission, "remaining" | "resetMs">,
): [string, string][] {
  return [
    ["RateLimit-Policy", rateLimitPolicy(rule)],
    ["RateLimit", rateLimitValue(rule, decision)],
  ];
}

/**
 * One token from the bucket named `key`, from this isolate's lease when it holds one, else from a new lease (one
 * Durable Object call). Denied: 429 rate_limited with Retry-After and RateLimit headers. When the limiter itself
 * fails: 429 when `failClosed`, otherwise undefined (the request goes on unlimited). `durable`: RateLimitOptions.
 */
export async function takeNamed(
  ns: DurableObjectNamespace<RateLimiter>,
  key: string,
  rule: BucketRule,
  failClosed = true,
  background?: Background,
  durable = failClosed,
): Promise<Admission | undefined> {
  book ??= new LeaseBook();
  let decision = book.take(key, Date.now());
  if (decision?.allowed && background && !durable && book.renewDue(key, Date.now())) {
    background(renewAhead(ns, book, key, rule));
  }
  // Each lease either leaves tokens here or records the bucket's refusal, and a wait on another request's call
  // ends with that call or after LEASE_WAIT_MS, so this ends.
  for (let round = 0; !decision; round++) {
    try {
      // A durable bucket is written through to its object's storage; any other lives in its memory (rate-limiter.ts).
      await leaseOnce(ns, book, key, rule, durable, round);
    } catch (err) {
      limiterUnavailable(key, err);
      if (failClosed) throw new AppError("rate_limited", { headers: { "Retry-After": "1" } });
      return undefined;
    }
    decision = book.take(key, Date.now());
  }
  if (!decision.allowed) {
    throw new AppError("rate_limited", {
      headers: {
        "Retry-After": String(Math.ceil(decision.retryAfterMs / 1000)),
        ...Object.fromEntries(rateLimitHeaders(rule, decision)),
      },
    });
  }
  return decision;
}

/**
 * 429 rate_limited (Retry-After, RateLimit headers) when this isolate already knows the bucket `key` is empty: no
 * call, nothing spent. Otherwise nothing happens. For a check before costly work whose token is spent afterwards,
 * only on some outcomes (`takeNamed`): refused API tokens per address (workers/fleet/src/caller.ts).
 */
export function refuseIfKnownEmpty(key: string, rule: BucketRule): void {
  const refusal = book?.refusal(key, Date.now());
  if (!refusal) return;
  throw new AppError("rate_limited", {
    headers: {
      "Retry-After": String(Math.max(1, Math.ceil(refusal.retryAfterMs / 1000))),
      ...Object.fromEntries(rateLimitHeaders(rule, refusal)),
    },
  });
}

/**
 * A token for one request from the lease this isolate holds on the caller's bucket of the route: no call, no await.
 * Undefined when none is held here, or the bucket is known empty: then `limitRequest` decides (and nothing was spent).
 */
export function takeLeased(options: RateLimitOptions, request: Request): Admission | undefined {
  const decision = book?.take(`${options.bucket}|${clientIpKey(request.headers)}`, Date.now());
  return decision?.allowed ? decision : undefined;
}

/** A route's limit applied to one request, outside a router too: `takeNamed` for the caller's bucket of the route. */
export function limitRequest(
  ns: DurableObjectNamespace<RateLimiter>,
  options: RateLimitOptions,
  request: Request,
  background?: Background,
): Promise<Admission | undefined> {
  const key = `${options.bucket}|${clientIpKey(request.headers)}`;
  return takeNamed(ns, key, options.rule, options.failClosed, background, options.durable);
}

export function rateLimit(options: RateLimitOptions): MiddlewareHandler<LimiterEnv> {
  return async (c, next) => {
    const decision = await limitRequest(c.env.RATE_LIMITER, options, c.req.raw, backgroundOf(c));
    await next();
    // On the answer itself: Hono's c.header() after the route has answered copies the whole Response for each
    // header, two copies a request that only the garbage collector ever saw (docs/scale.md, "The latency tail").
    if (decision) for (const [name, value] of rateLimitHeaders(options.rule, decision)) setAnswerHeader(c, name, value);
  };
}
