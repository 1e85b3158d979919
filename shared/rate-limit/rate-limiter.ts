// The rate-limit Durable Object: one instance per (route bucket, client IP); its input gate serialises
// concurrent takes and leases, so a burst can never be admitted past the bucket's capacity. The bucket is held in
// memory and written through to the object's synchronous SQLite-backed KV (durable before the answer leaves, by the
// output gate), so a call costs no storage round trip; a restarted object reads it back once. Workers lease shares
// of the bucket (lease.ts) instead of calling once per request.
import { DurableObject } from "cloudflare:workers";
import {
  type BucketDecision,
  type BucketRule,
  type BucketState,
  type LeaseDecision,
  leaseTokens,
  takeToken,
} from "./token-bucket";

const STATE_KEY = "bucket";

export class RateLimiter extends DurableObject {
  private state: BucketState | undefined;
  private loaded = false;

  take(rule: BucketRule): BucketDecision {
    return this.apply((state) => takeToken(rule, state, Date.now()));
  }

  /** Takes a share of the bucket for a worker to spend; `giveBack` returns the unspent tokens of its last lease. */
  lease(rule: BucketRule, want: number, giveBack: number): LeaseDecision {
    return this.apply((state) => leaseTokens(rule, state, Date.now(), want, giveBack));
  }

  private apply<D extends { state: BucketState }>(step: (state: BucketState | undefined) => D): D {
    if (!this.loaded) {
      this.state = this.ctx.storage.kv.get<BucketState>(STATE_KEY);
      this.loaded = true;
    }
    const decision = step(this.state);
    this.state = decision.state;
    this.ctx.storage.kv.put(STATE_KEY, decision.state);
    return decision;
  }
}
