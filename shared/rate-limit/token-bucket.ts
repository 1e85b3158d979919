// Token bucket, pure: a bucket of `capacity` tokens refilled continuously over `windowMs`.
// One request takes one token; an empty bucket answers how long until the next token.

export interface BucketRule {
  capacity: number;
  windowMs: number;
}

export interface BucketState {
  tokens: number;
  updatedAt: number;
}

export interface BucketDecision {
  allowed: boolean;
  state: BucketState;
  remaining: number;
  /** Milliseconds until one token is available (0 when allowed). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

export function takeToken(rule: BucketRule, previous: BucketState | undefined, now: number): BucketDecision {
  const perMs = rule.capacity / rule.windowMs;
  const elapsed = previous ? Math.max(0, now - previous.updatedAt) : rule.windowMs;
  const available = Math.min(rule.capacity, (previous?.tokens ?? rule.capacity) + elapsed * perMs);
  const allowed = available >= 1;
  const tokens = allowed ? available - 1 : available;
  return {
    allowed,
    state: { tokens, updatedAt: now },
    remaining: Math.floor(tokens),
    retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) / perMs),
    resetMs: Math.ceil((rule.capacity - tokens) / perMs),
  };
}
