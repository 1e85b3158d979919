// Leased rate-limit tokens (issue 19): an isolate spends a share of the bucket locally, so most requests make no
// Durable Object call, and yet no more pass than the rule allows, concurrent or not.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LEASE_MS, LeaseBook } from "../../shared/rate-limit/lease";
import { takeNamed } from "../../shared/rate-limit/middleware";
import type { RateLimiter } from "../../shared/rate-limit/rate-limiter";
import { AUTH_RULE, READ_RULE } from "../../shared/rate-limit/rules";
import { type BucketState, leaseShare, leaseTokens } from "../../shared/rate-limit/token-bucket";

describe("lease sizing", () => {
  it("a large share of a full bucket, a small one near empty, none of an empty one, never above the ask", () => {
    expect(leaseShare(60, 60, 64)).toBe(45);
    expect(leaseShare(20, 60, 64)).toBe(5);
    expect(leaseShare(3, 60, 64)).toBe(1);
    expect(leaseShare(0.9, 60, 64)).toBe(0);
    expect(leaseShare(60, 60, 10)).toBe(10);
  });

  it("returned tokens come back first, never above capacity; a refusal says when to retry", () => {
    const t0 = 1_000_000;
    const first = leaseTokens(AUTH_RULE, undefined, t0, 64, 0);
    expect(first.granted).toBe(15);
    expect(first.remaining).toBe(5);
    const back = leaseTokens(AUTH_RULE, first.state, t0, 64, 15);
    expect(back.granted).toBe(15); // the 15 returned, then the same share again
    const full: BucketState = { tokens: 20, updatedAt: t0 };
    expect(leaseTokens(AUTH_RULE, full, t0, 64, 100).state.tokens).toBeLessThanOrEqual(20);
    const empty = leaseTokens(AUTH_RULE, { tokens: 0, updatedAt: t0 }, t0, 64, 0);
    expect(empty.granted).toBe(0);
    expect(empty.retryAfterMs).toBe(3000);
  });
});

describe("the isolate's lease book", () => {
  it("spends a lease locally, asks again when it runs out or ends, and hands back what was unspent", () => {
    const book = new LeaseBook();
    const t0 = 1_000_000;
    expect(book.take("k", t0)).toBeUndefined();
    const granted = leaseTokens(READ_RULE, undefined, t0, 3, 0);
    book.record("k", granted, t0);
    for (let i = 0; i < 3; i++) expect(book.take("k", t0)?.allowed).toBe(true);
    expect(book.take("k", t0)).toBeUndefined(); // three spent: ask again
    book.record("k", leaseTokens(READ_RULE, granted.state, t0, 3, 0), t0);
    expect(book.take("k", t0 + LEASE_MS)).toBeUndefined(); // ended
    expect(book.release("k")).toBe(3);
    expect(book.release("k")).toBe(0);
  });

  it("a refusal never drops tokens still held from a concurrent lease", () => {
    const book = new LeaseBook();
    const t0 = 1_000_000;
    book.record("k", leaseTokens(AUTH_RULE, undefined, t0, 2, 0), t0);
    book.record("k", leaseTokens(AUTH_RULE, { tokens: 0, updatedAt: t0 }, t0, 64, 0), t0);
    expect(book.take("k", t0)?.allowed).toBe(true);
    expect(book.take("k", t0)?.allowed).toBe(true);
  });

  it("remembers a refusal until the bucket has a token again", () => {
    const book = new LeaseBook();
    const t0 = 1_000_000;
    book.record("k", leaseTokens(AUTH_RULE, { tokens: 0, updatedAt: t0 }, t0, 64, 0), t0);
    expect(book.take("k", t0)).toMatchObject({ allowed: false, retryAfterMs: 3000 });
    expect(book.take("k", t0 + 2999)?.allowed).toBe(false);
    expect(book.take("k", t0 + 3000)).toBeUndefined();
  });
});

/** The real limiter object, with its lease calls counted. */
function counted(ns: DurableObjectNamespace<RateLimiter>) {
  const calls = { n: 0 };
  const wrapped = {
    idFromName: (name: string) => ns.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = ns.get(id);
      return {
        lease: (...args: Parameters<RateLimiter["lease"]>) => {
          calls.n += 1;
          return stub.lease(...args);
        },
      };
    },
  } as unknown as DurableObjectNamespace<RateLimiter>;
  return { ns: wrapped, calls };
}

describe("against the limiter object", () => {
  it("40 concurrent requests on a 20/min bucket: exactly 20 pass", async () => {
    const key = `lease-test|${crypto.randomUUID()}`;
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, () => takeNamed(env.RATE_LIMITER, key, AUTH_RULE)),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(20);
  });

  it("50 concurrent first requests of a bucket wait for one call's tokens instead of each calling", async () => {
    const { ns, calls } = counted(env.RATE_LIMITER);
    const key = `lease-test|${crypto.randomUUID()}`;
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => takeNamed(ns, key, READ_RULE)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(50);
    expect(calls.n).toBeLessThanOrEqual(4);
  });

  it("60 reads of one client cost a handful of object calls, not 60, and the 61st is refused", async () => {
    const { ns, calls } = counted(env.RATE_LIMITER);
    const key = `lease-test|${crypto.randomUUID()}`;
    for (let i = 0; i < 60; i++) await takeNamed(ns, key, READ_RULE);
    expect(calls.n).toBeLessThanOrEqual(12);
    await expect(takeNamed(ns, key, READ_RULE)).rejects.toMatchObject({ reason: "rate_limited" });
  });
});
