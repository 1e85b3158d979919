// The rate-limit Durable Object. Buckets are grouped into shards: one object per (route bucket, shard), the shard
// picked by a hash of the bucket's key (`limiterFor`, shards.ts), so a new client's first lease goes to an object that is
// already running instead of creating one of its own (creating an object, with its storage, per client was most
// of a cached /api/check's cost: bench/README.md). The object's input gate serialises the takes and leases of all
// its buckets, so a burst can never be admitted past a bucket's capacity. Each bucket is held in memory. A durable
// one (the buckets that fail closed: sign-in, codes) is also written through to the object's synchronous
// SQLite-backed KV under its key (durable before the answer leaves, by the output gate), so a call costs no storage
// round trip and a restarted object reads it back when first asked; a refilled one is the same as none, and an alarm
// deletes those. A bucket that fails open (reads) is kept in memory only: the write was half of a lease's cost, and
// losing it when the object restarts admits at most one bucket more, less than the same route admits when the
// limiter is down. Workers lease shares of a bucket (lease.ts) instead of calling once per request.
import { DurableObject } from "cloudflare:workers";
import {
  type BucketDecision,
  type BucketRule,
  type BucketState,
  type LeaseDecision,
  leaseTokens,
  takeToken,
} from "./token-bucket";

/**
 * Buckets an object keeps in memory, the least recently used forgotten past it: a durable one is read back from
 * storage when asked again; one that fails open starts full again, which only a bucket left alone while 10,000
 * others were used can do.
 */
const MEMORY_BUCKETS = 10_000;
/** How often an object deletes its refilled buckets. */
const SWEEP_MS = 10 * 60_000;

/** A stored bucket: its state, and when it is full again (from then on it is the same as no bucket). */
interface StoredBucket extends BucketState {
  fullAt: number;
}

export class RateLimiter extends DurableObject {
  readonly #buckets = new Map<string, StoredBucket>();
  #sweepArmed = false;

  take(key: string, rule: BucketRule, durable = true): BucketDecision {
    return this.#apply(key, durable, (state, now) => takeToken(rule, state, now));
  }

  /** Takes a share of the bucket for a worker to spend; `giveBack` returns the unspent tokens of its last lease. */
  lease(key: string, rule: BucketRule, want: number, giveBack: number, durable = true): LeaseDecision {
    return this.#apply(key, durable, (state, now) => leaseTokens(rule, state, now, want, giveBack));
  }

  /** Deletes the buckets that have refilled, and comes back while any is left. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    let left = 0;
    for (const [key, bucket] of this.ctx.storage.kv.list<StoredBucket>()) {
      if (bucket.fullAt <= now) {
        this.ctx.storage.kv.delete(key);
        this.#buckets.delete(key);
      } else left += 1;
    }
    if (left > 0) await this.ctx.storage.setAlarm(now + SWEEP_MS);
  }

  #apply<D extends { state: BucketState; resetMs: number }>(
    key: string,
    durable: boolean,
    step: (state: BucketState | undefined, now: number) => D,
  ): D {
    const now = Date.now();
    const kept = this.#buckets.get(key) ?? (durable ? this.ctx.storage.kv.get<StoredBucket>(key) : undefined);
    const decision = step(kept, now);
    const stored: StoredBucket = { ...decision.state, fullAt: now + decision.resetMs };
    this.#buckets.delete(key); // re-inserted: the Map's order is then least recently used first
    this.#buckets.set(key, stored);
    if (this.#buckets.size > MEMORY_BUCKETS) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    if (durable) {
      this.ctx.storage.kv.put(key, stored);
      this.#armSweep(now);
    }
    return decision;
  }

  /** Once per object start: a sweep is due SWEEP_MS from now unless one is already set. */
  #armSweep(now: number) {
    if (this.#sweepArmed) return;
    this.#sweepArmed = true;
    void this.ctx.storage
      .getAlarm()
      .then((at) => (at === null ? this.ctx.storage.setAlarm(now + SWEEP_MS) : undefined));
  }
}
