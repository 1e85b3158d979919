// The rate-limit Durable Object: one instance per (route bucket, client IP); its input gate serialises
// concurrent takes, so a burst can never be admitted past the bucket's capacity.
import { DurableObject } from "cloudflare:workers";
import { type BucketDecision, type BucketRule, type BucketState, takeToken } from "./token-bucket";

const STATE_KEY = "bucket";

export class RateLimiter extends DurableObject {
  async take(rule: BucketRule): Promise<BucketDecision> {
    const previous = await this.ctx.storage.get<BucketState>(STATE_KEY);
    const decision = takeToken(rule, previous, Date.now());
    await this.ctx.storage.put(STATE_KEY, decision.state);
    return decision;
  }
}
