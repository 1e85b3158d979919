// An isolate's leases on rate-limit buckets (issue 19): instead of one Durable Object call per request, the isolate
// takes a share of a bucket's tokens (rate-limiter.ts `lease`) and spends them locally until they run out or the
// lease ends; unspent tokens go back with the next lease. Tokens leave the bucket when leased, so the rule is never
// exceeded however the isolates spend them; the cost of a lease that lapses unspent is admitting fewer, never more.
import type { LeaseDecision } from "./token-bucket";

/** A lease's life: past it, its unspent tokens are returned at the next lease of the bucket. */
export const LEASE_MS = 5_000;
/** The most tokens one lease asks for. */
export const LEASE_WANT = 64;
/** Buckets an isolate keeps leases on; the oldest are forgotten past it (their tokens lapse). */
export const MAX_LEASES = 10_000;
/** How long a request waits for another request's lease call of the same bucket before making its own. */
export const LEASE_WAIT_MS = 250;

/** What a request is told, in the bucket's terms (the RateLimit headers come from it). */
export interface Admission {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
  resetMs: number;
}

interface Lease {
  tokens: number;
  expiresAt: number;
  /** Whole tokens left in the bucket when the lease was granted. */
  bucketRemaining: number;
  resetAt: number;
  /** Set when the bucket was empty: refuse locally until then. */
  deniedUntil: number;
}

export class LeaseBook {
  readonly #leases = new Map<string, Lease>();
  /** Buckets with a lease call in flight, and when it started. */
  readonly #calling = new Map<string, number>();

  /**
   * Marks a lease call of `key` as started, unless another is in flight (started less than LEASE_WAIT_MS ago):
   * false then, and the caller waits for that call's tokens instead of asking the object again. Without this,
   * every request that finds a bucket empty at once (a burst on a fresh address) makes its own call.
   */
  begin(key: string, now: number): boolean {
    const since = this.#calling.get(key);
    if (since !== undefined && now - since < LEASE_WAIT_MS) return false;
    this.#calling.set(key, now);
    return true;
  }

  /** The lease call of `key` ended (answered or failed). */
  end(key: string): void {
    this.#calling.delete(key);
  }

  /** True while a lease call of `key` is in flight. */
  calling(key: string, now: number): boolean {
    const since = this.#calling.get(key);
    return since !== undefined && now - since < LEASE_WAIT_MS;
  }

  /** Spends one leased token, or refuses while the bucket is known empty; undefined: ask for a lease. */
  take(key: string, now: number): Admission | undefined {
    const lease = this.#leases.get(key);
    if (!lease) return undefined;
    if (now < lease.deniedUntil) {
      return { allowed: false, remaining: 0, retryAfterMs: lease.deniedUntil - now, resetMs: lease.resetAt - now };
    }
    if (lease.tokens < 1 || now >= lease.expiresAt) return undefined;
    lease.tokens -= 1;
    return this.#admitted(lease, now);
  }

  /** The unspent tokens of the bucket's last lease, handed back (and forgotten here). */
  release(key: string): number {
    const lease = this.#leases.get(key);
    if (!lease) return 0;
    const unspent = lease.tokens;
    lease.tokens = 0;
    return unspent;
  }

  /** Records what the bucket answered a lease: tokens to spend, or a refusal while none is held here. */
  record(key: string, decision: LeaseDecision, now: number): void {
    const resetAt = now + decision.resetMs;
    const held = this.#leases.get(key);
    // Tokens still held here (a concurrent lease) add up: nothing granted is ever dropped.
    const kept = held && now < held.expiresAt ? held.tokens : 0;
    if (decision.granted < 1) {
      if (kept >= 1) return;
      const deniedUntil = now + decision.retryAfterMs;
      this.#store(key, { tokens: 0, expiresAt: now, bucketRemaining: 0, resetAt, deniedUntil });
      return;
    }
    const tokens = kept + decision.granted;
    this.#store(key, {
      tokens,
      expiresAt: now + LEASE_MS,
      bucketRemaining: decision.remaining,
      resetAt,
      deniedUntil: 0,
    });
  }

  #admitted(lease: Lease, now: number): Admission {
    const remaining = lease.bucketRemaining + Math.floor(lease.tokens);
    return { allowed: true, remaining, retryAfterMs: 0, resetMs: Math.max(0, lease.resetAt - now) };
  }

  #store(key: string, lease: Lease) {
    this.#leases.delete(key); // re-insert: the Map's order is then least recently leased first
    this.#leases.set(key, lease);
    if (this.#leases.size > MAX_LEASES) {
      const oldest = this.#leases.keys().next().value;
      if (oldest !== undefined) this.#leases.delete(oldest);
    }
  }
}
