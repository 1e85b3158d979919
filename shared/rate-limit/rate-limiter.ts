// The rate-limit Durable Object: one instance per (route bucket, client IP); its input gate serialises
// concurrent takes, so a burst can never be admitted past the bucket's capacity. The bucket is held in memory and
// written through to the object's synchronous SQLite-backed KV (durable before the answer leaves, by the output
// gate), so a take costs no storage round trip; a restarted object reads it back once.
import { DurableObject } from "cloudflare:workers";
import { type BucketDecision, type BucketRule, type BucketState, takeToken } from "./token-bucket";

const STATE_KEY = "bucket";

export class RateLimiter extends DurableObject {
  private state: BucketState | undefined;
  private loaded = false;

  take(rule: BucketRule): BucketDecision {
    if (!this.loaded) {
      this.state = this.ctx.storage.kv.get<BucketState>(STATE_KEY);
      this.loaded = true;
    }
    const decision = takeToken(rule, this.state, Date.now());
    this.state = decision.state;
    this.ctx.storage.kv.put(STATE_KEY, decision.state);
    return decision;
  }
}
