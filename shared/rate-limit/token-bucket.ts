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

export interface LeaseDecision {
  /** Tokens taken from the bucket for the caller to spend (0: refused). */
  granted: number;
  state: BucketState;
  /** Whole tokens left in the bucket after the grant. */
  remaining: number;
  retryAfterMs: number;
  resetMs: number;
}

/**
 * How many tokens one lease takes: while the bucket is more than half full, all but an eighth of its capacity
 * (at least half of what is left); below that, half of what is left. So a client alone on one isolate (the usual
 * case) spends most of its minute on one call, another isolate that meets the same client still finds tokens, and
 * no lease is ever more than asked for. At least one when any is left.
 */
export function leaseShare(available: number, capacity: number, want: number): number {
  const whole = Math.floor(available);
  if (whole < 1) return 0;
  const half = Math.floor(whole / 2);
  const share = available > capacity / 2 ? Math.max(whole - Math.ceil(capacity / 8), half) : half;
  return Math.max(1, Math.min(want, share));
}

/**
 * A lease: unspent tokens of an earlier lease come back first (never above capacity), then a share is taken.
 * Tokens are taken when leased, so however they are spent, no more pass than the rule allows.
 */
export function leaseTokens(
  rule: BucketRule,
  previous: BucketState | undefined,
  now: number,
  want: number,
  giveBack: number,
): LeaseDecision {
  const perMs = rule.capacity / rule.windowMs;
  const elapsed = previous ? Math.max(0, now - previous.updatedAt) : rule.windowMs;
  const refilled = (previous?.tokens ?? rule.capacity) + elapsed * perMs + Math.max(0, Math.floor(giveBack));
  const available = Math.min(rule.capacity, refilled);
  const granted = leaseShare(available, rule.capacity, want);
  const tokens = available - granted;
  return {
    granted,
    state: { tokens, updatedAt: now },
    remaining: Math.floor(tokens),
    retryAfterMs: granted > 0 ? 0 : Math.ceil((1 - tokens) / perMs),
    resetMs: Math.ceil((rule.capacity - tokens) / perMs),
  };
}
