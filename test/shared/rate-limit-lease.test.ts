// Leased rate-limit tokens (issue 19): an isolate spends a share of the bucket locally, so most requests make no
// Durable Object call, and yet no more pass than the rule allows, concurrent or not.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LEASE_MS, LeaseBook, RENEW_BELOW, RENEW_WITHIN_MS } from "../../shared/rate-limit/lease";
import { leaseTogether, takeNamed } from "../../shared/rate-limit/middleware";
import type { RateLimiter } from "../../shared/rate-limit/rate-limiter";
import { AUTH_RULE, READ_RULE } from "../../shared/rate-limit/rules";
import { LIMITER_SHARDS, limiterFor } from "../../shared/rate-limit/shards";
import { type BucketState, leaseShare, leaseTokens } from "../../shared/rate-limit/token-bucket";

describe("lease sizing", () => {
  it("a large share of a full bucket, a small one near empty, none of an empty one, never above the ask", () => {
    expect(leaseShare(60, 60, 64)).toBe(52); // all but an eighth of the capacity, left for other isolates
    expect(leaseShare(40, 60, 64)).toBe(32);
    expect(leaseShare(20, 60, 64)).toBe(10);
    expect(leaseShare(3, 60, 64)).toBe(1);
    expect(leaseShare(0.9, 60, 64)).toBe(0);
    expect(leaseShare(60, 60, 10)).toBe(10);
  });

  it("returned tokens come back first, never above capacity; a refusal says when to retry", () => {
    const t0 = 1_000_000;
    const first = leaseTokens(AUTH_RULE, undefined, t0, 64, 0);
    expect(first.granted).toBe(17);
    expect(first.remaining).toBe(3);
    const back = leaseTokens(AUTH_RULE, first.state, t0, 64, 17);
    expect(back.granted).toBe(17); // the 17 returned, then the same share again
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

  it("holds a bucket while a live lease has tokens or a refusal stands, not once it is spent or ended", () => {
    const book = new LeaseBook();
    const t0 = 1_000_000;
    expect(book.holds("k", t0)).toBe(false);
    book.record("k", leaseTokens(READ_RULE, undefined, t0, 1, 0), t0);
    expect(book.holds("k", t0)).toBe(true);
    expect(book.holds("k", t0 + LEASE_MS)).toBe(false); // ended
    book.take("k", t0);
    expect(book.holds("k", t0)).toBe(false); // spent
    book.record("r", leaseTokens(AUTH_RULE, { tokens: 0, updatedAt: t0 }, t0, 64, 0), t0);
    expect(book.holds("r", t0)).toBe(true); // the refusal answers without a call
  });

  it("asks for the next lease ahead of need: few tokens left or near its end, never when the bucket had none to spare", () => {
    const book = new LeaseBook();
    const t0 = 1_000_000;
    book.record("k", leaseTokens(READ_RULE, undefined, t0, 64, 0), t0); // 52 granted, 8 left in the bucket
    expect(book.renewDue("k", t0)).toBe(false);
    while (book.take("k", t0) && !book.renewDue("k", t0));
    expect(book.take("k", t0)?.remaining).toBeGreaterThan(0);
    book.record("n", leaseTokens(READ_RULE, undefined, t0, 64, 0), t0);
    expect(book.renewDue("n", t0 + LEASE_MS - RENEW_WITHIN_MS - 1)).toBe(false);
    expect(book.renewDue("n", t0 + LEASE_MS - RENEW_WITHIN_MS)).toBe(true);
    expect(book.renewDue("n", t0 + LEASE_MS)).toBe(false); // ended: the next request asks as ever
    // A call in flight: no second one.
    expect(book.begin("n", t0 + LEASE_MS - 10)).toBe(true);
    expect(book.renewDue("n", t0 + LEASE_MS - 5)).toBe(false);
    // The last of a bucket (nothing left to spare when granted): renewing early would only ask an empty bucket.
    const last = leaseTokens(READ_RULE, { tokens: 1, updatedAt: t0 }, t0, 64, 0);
    expect(last.remaining).toBe(0);
    book.record("e", last, t0);
    expect(book.renewDue("e", t0)).toBe(false);
  });

  it("tokens of a lease renewed ahead add to those still held, with the new lease's life", () => {
    const book = new LeaseBook();
    const t0 = 1_000_000;
    book.record("k", leaseTokens(READ_RULE, undefined, t0, 20, 0), t0);
    for (let i = 0; i < 20 - RENEW_BELOW; i++) book.take("k", t0);
    expect(book.renewDue("k", t0)).toBe(true);
    book.record("k", leaseTokens(READ_RULE, { tokens: 40, updatedAt: t0 }, t0 + 1_000, 10, 0), t0 + 1_000);
    let spent = 0;
    while (book.take("k", t0 + 1_000 + LEASE_MS - 1)?.allowed) spent += 1;
    expect(spent).toBe(RENEW_BELOW + 10);
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
    // 52, then half of what is left each time: 4, 2, 1, 1 (the last from the refill while they ran).
    expect(calls.n).toBeLessThanOrEqual(6);
    await expect(takeNamed(ns, key, READ_RULE)).rejects.toMatchObject({ reason: "rate_limited" });
  });
});

describe("leases ahead of need and together (issue 31's tail)", () => {
  it("a client at speed on a bucket that fails open never waits for its next lease: it is asked for in the background", async () => {
    const { ns, calls } = counted(env.RATE_LIMITER);
    const key = `ahead-test|${crypto.randomUUID()}`;
    const background: Promise<unknown>[] = [];
    const keep = (work: Promise<unknown>) => background.push(work);
    // A request whose call is its own (not in the background) waited for it.
    let waited = 0;
    for (let i = 0; i < READ_RULE.capacity; i++) {
      const [before, pushed] = [calls.n, background.length];
      await takeNamed(ns, key, READ_RULE, false, keep);
      if (calls.n > before && background.length === pushed) waited += 1;
      await Promise.all(background); // the renewal lands before the next request, as it does between requests
    }
    expect(waited).toBe(1); // the first request of the minute, never a renewal
    expect(background.length).toBeGreaterThan(0);
    expect(calls.n).toBeLessThanOrEqual(8);
    // Every token of the minute was spent: the next one is refused, as without leases ahead.
    await expect(takeNamed(ns, key, READ_RULE, false, keep)).rejects.toMatchObject({ reason: "rate_limited" });
  });

  it("a bucket that fails closed (sign-in, codes) is never leased ahead: it asks only when its lease is spent", async () => {
    const { ns, calls } = counted(env.RATE_LIMITER);
    const key = `ahead-closed|${crypto.randomUUID()}`;
    const background: Promise<unknown>[] = [];
    for (let i = 0; i < AUTH_RULE.capacity; i++) await takeNamed(ns, key, AUTH_RULE, true, (w) => background.push(w));
    expect(background).toHaveLength(0);
    await expect(takeNamed(ns, key, AUTH_RULE)).rejects.toMatchObject({ reason: "rate_limited" });
    expect(calls.n).toBeGreaterThan(1);
  });

  it("leases two buckets a request takes in turn with one round trip of calls, and asks nothing for buckets it holds", async () => {
    const { ns, calls } = counted(env.RATE_LIMITER);
    const share = `together-share|${crypto.randomUUID()}`;
    const project = `together-project|${crypto.randomUUID()}`;
    await leaseTogether(
      ns,
      [
        [share, READ_RULE],
        [project, READ_RULE],
      ],
      false,
    );
    expect(calls.n).toBe(2);
    await takeNamed(ns, share, READ_RULE, false);
    await takeNamed(ns, project, READ_RULE, false);
    await leaseTogether(
      ns,
      [
        [share, READ_RULE],
        [project, READ_RULE],
      ],
      false,
    );
    expect(calls.n).toBe(2); // both held: no call, and the takes above spent from the leases
  });

  it("leasing spends nothing: a refusal of the first bucket leaves the second's tokens to the next request", async () => {
    const share = `together-refused|${crypto.randomUUID()}`;
    const project = `together-kept|${crypto.randomUUID()}`;
    for (let i = 0; i < AUTH_RULE.capacity; i++) await takeNamed(env.RATE_LIMITER, share, AUTH_RULE, false);
    await leaseTogether(
      env.RATE_LIMITER,
      [
        [share, AUTH_RULE],
        [project, AUTH_RULE],
      ],
      false,
    );
    await expect(takeNamed(env.RATE_LIMITER, share, AUTH_RULE, false)).rejects.toMatchObject({
      reason: "rate_limited",
    });
    // The project's 20 are all there: the lease took tokens out of its bucket into this isolate, none was spent.
    for (let i = 0; i < AUTH_RULE.capacity; i++) await takeNamed(env.RATE_LIMITER, project, AUTH_RULE, false);
    await expect(takeNamed(env.RATE_LIMITER, project, AUTH_RULE, false)).rejects.toMatchObject({
      reason: "rate_limited",
    });
  });
});

/** Two bucket keys of one route that the hash puts in the same limiter object. */
function keysSharingAnObject(route: string): [string, string] {
  const seen = new Map<string, string>();
  for (;;) {
    const key = `${route}|${crypto.randomUUID()}`;
    const id = limiterFor(env.RATE_LIMITER, key).id.toString();
    const other = seen.get(id);
    if (other) return [other, key];
    seen.set(id, key);
  }
}

describe("limiter objects hold many buckets (one object per route and shard, not per client)", () => {
  it("a route's buckets spread over at most LIMITER_SHARDS objects, and the same key always finds the same one", () => {
    const ids = new Set<string>();
    for (let i = 0; i < 2_000; i++)
      ids.add(limiterFor(env.RATE_LIMITER, `spread|10.0.${i >> 8}.${i & 255}`).id.toString());
    expect(ids.size).toBe(LIMITER_SHARDS);
    const key = "spread|192.0.2.7";
    expect(limiterFor(env.RATE_LIMITER, key).id.equals(limiterFor(env.RATE_LIMITER, key).id)).toBe(true);
  });

  it("two clients in one object have buckets of their own: one emptied, the other still passes", async () => {
    const [first, second] = keysSharingAnObject(`shared-${crypto.randomUUID()}`);
    for (let i = 0; i < AUTH_RULE.capacity; i++) await takeNamed(env.RATE_LIMITER, first, AUTH_RULE);
    await expect(takeNamed(env.RATE_LIMITER, first, AUTH_RULE)).rejects.toMatchObject({ reason: "rate_limited" });
    await expect(takeNamed(env.RATE_LIMITER, second, AUTH_RULE)).resolves.toMatchObject({ allowed: true });
  });

  it("the sweep deletes a bucket that has refilled and keeps one that has not", async () => {
    const [refilled, draining] = keysSharingAnObject(`sweep-${crypto.randomUUID()}`);
    const stub = limiterFor(env.RATE_LIMITER, refilled);
    await stub.take(refilled, { capacity: 1, windowMs: 1 }); // full again a millisecond later
    await stub.take(draining, AUTH_RULE); // full again in three seconds
    await new Promise((resolve) => setTimeout(resolve, 5));
    const stored = () =>
      runInDurableObject(stub, (_instance, state) => [refilled, draining].map((key) => state.storage.kv.get(key)));
    expect((await stored()).map(Boolean)).toEqual([true, true]);
    // Due in a minute (an alarm due now could run by itself first), then run at once.
    await runInDurableObject(stub, (_instance, state) => state.storage.setAlarm(Date.now() + 60_000));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await stored()).map(Boolean)).toEqual([false, true]);
    // The draining bucket is still counted: 19 more pass, then it refuses.
    for (let i = 0; i < AUTH_RULE.capacity - 1; i++) expect((await stub.take(draining, AUTH_RULE)).allowed).toBe(true);
    expect((await stub.take(draining, AUTH_RULE)).allowed).toBe(false);
  });

  it("a bucket that fails closed is written to storage; one that fails open is kept in memory only", async () => {
    const [closed, open] = keysSharingAnObject(`durable-${crypto.randomUUID()}`);
    await takeNamed(env.RATE_LIMITER, closed, AUTH_RULE); // fails closed: durable
    await takeNamed(env.RATE_LIMITER, open, READ_RULE, false); // fails open: memory
    const stub = limiterFor(env.RATE_LIMITER, closed);
    const stored = await runInDurableObject(stub, (_instance, state) =>
      [closed, open].map((key) => state.storage.kv.get(key) !== undefined),
    );
    expect(stored).toEqual([true, false]);
    // Kept in memory all the same: the object still counts what it leased (52 of 60 went to the first lease).
    const next = await stub.lease(open, READ_RULE, 64, 0, false);
    expect(next.remaining).toBeLessThan(READ_RULE.capacity - 52);
  });
});
