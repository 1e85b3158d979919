// An isolate's leases on rate-limit buckets (issue 19): instead of one Durable Object call per request, the isolate
// takes a share of a bucket's tokens (rate-limiter.ts `lease`) and spends them locally until they run out or the
// lease ends; unspent tokens go back with the next lease. Tokens leave the bucket when leased, so the rule is never
// exceeded however the isolates spend them; the cost of a lease that lapses unspent is admitting fewer, never more.
// A lease of a bucket kept in memory (not durable) is renewed before it runs out (`renewDue`, middleware.ts), so a
// client at speed waits for its first lease only.
import type { LeaseDecision } from "./token-bucket";

/** A lease's life: past it, its unspent tokens are returned at the next lease of the bucket. */
export const LEASE_MS = 5_000;
/** The most tokens one lease asks for. */
export const LEASE_WANT = 64;
/** Buckets an isolate keeps leases on; the oldest are forgotten past it (their tokens lapse). */
export const MAX_LEASES = 10_000;
/** How long a request waits for another request's lease call of the same bucket before making its own. */
export const LEASE_WAIT_MS = 250;
/**
 * A lease of a bucket kept in memory (not durable) is renewed ahead of need (in the background, `renewDue`) once it
 * holds this few tokens or ends within RENEW_WITHIN_MS: a client at speed then never waits for its next lease (issue
 * 31's tail).
 */
export const RENEW_BELOW = LEASE_WANT / 4;
export const RENEW_WITHIN_MS = 1_000;

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

  /** True while this isolate can answer for `key` without a call: tokens of a live lease, or a known refusal. */
  holds(key: string, now: number): boolean {
    const lease = this.#leases.get(key);
    if (!lease) return false;
    return now < lease.deniedUntil || (lease.tokens >= 1 && now < lease.expiresAt);
  }

  /**
   * True when the lease of `key` runs low (RENEW_BELOW tokens or RENEW_WITHIN_MS left) while its bucket had tokens
   * to spare when it was granted, and no call is in flight: the next lease can be asked for now, before a request
   * needs it. Its tokens add to those still held (`record`), so nothing is spent that the bucket did not grant.
   */
  renewDue(key: string, now: number): boolean {
    const lease = this.#leases.get(key);
    if (!lease || lease.bucketRemaining < 1 || now >= lease.expiresAt) return false;
    if (lease.tokens > RENEW_BELOW && lease.expiresAt - now > RENEW_WITHIN_MS) return false;
    return !this.calling(key, now);
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

  /**
   * The refusal in force for `key` (a take found its bucket empty, and it has not refilled since), or undefined:
   * no call, nothing spent. For a check before costly work whose token is spent only on the work's outcome.
   */
  refusal(key: string, now: number): Admission | undefined {
    const lease = this.#leases.get(key);
    if (!lease || now >= lease.deniedUntil) return undefined;
    return { allowed: false, remaining: 0, retryAfterMs: lease.deniedUntil - now, resetMs: lease.resetAt - now };
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
