// The admission gate in front of the registration routes (issue 47, item 4), pure: an isolate that takes more
// registrations than it finishes queues them until answers come too late or connections break; this one refuses a
// new registration early instead, when the wait it would have is already past the budget. No I/O, `now` passed in.
//
// The wait is predicted by Little's law: with `inFlight` registrations in this isolate finishing at `rate` a
// millisecond, a new one waits about inFlight / rate. The rate is completions per busy millisecond (time with at
// least one registration in flight) over the last second or two, so a quiet isolate's rate is still what it could
// do, not how little it was asked. Below saturation the quotient is the registrations' own latency, so the gate only
// bites once a queue stands; and it never refuses a burst: not below `floor` in flight, nor before the isolate has
// been busy without a pause for the budget (no request can have waited longer than that yet).

/** How much the gate lets in (docs/scale.md, "Overload"). */
export interface ShedLimits {
  /** Below this many in flight, a registration is always admitted. */
  floor: number;
  /** At this many in flight, a registration is refused whatever the rate (the isolate's memory, its one thread). */
  ceiling: number;
  /** A registration whose predicted wait is longer than this is refused (ms). */
  budgetMs: number;
}

export const SHED_LIMITS: ShedLimits = {
  // A few, each waiting on a D1 round trip of its own: too few for a rate to say anything (bursts are admitted anyway
  // until the isolate has been busy for the budget).
  floor: 8,
  // Far above any wait within the budget at the rates measured (bench/RESULTS.md, sustained); a hard stop only.
  ceiling: 512,
  // Half a second of queue: an admitted registration is answered well inside the 2 s bound, a refused one at once.
  budgetMs: 500,
};

/** The completions and busy time counted over this window (and the part of the next one gone) make the rate. */
export const RATE_WINDOW_MS = 1_000;

/**
 * A registration still in flight after this long is counted as gone (not finished): a client that disconnects may
 * end the request's work without its `leave` ever running, and a slot it held must not stay taken.
 */
export const STALE_MS = 10_000;

/** Admitted with the ticket `leave` takes back, or refused with why. */
export type Admission =
  | { admitted: true; ticket: number }
  | { admitted: false; why: "ceiling" | "wait"; predictedWaitMs: number };

interface Window {
  /** Registrations finished in it. */
  done: number;
  /** Milliseconds of it with at least one registration in flight. */
  busyMs: number;
}

export class AdmissionGate {
  /** Tickets in flight → when each was admitted, oldest first (a Map keeps insertion order). */
  #entries = new Map<number, number>();
  #nextTicket = 1;
  /** When the current busy period began (undefined while idle); busy time up to `#mark` is counted. */
  #busySince: number | undefined;
  #mark = 0;
  #windowStart = Number.NEGATIVE_INFINITY;
  #current: Window = { done: 0, busyMs: 0 };
  #previous: Window = { done: 0, busyMs: 0 };

  /** Registrations admitted and not finished. */
  get inFlight(): number {
    return this.#entries.size;
  }

  /** Registrations finished per busy millisecond over the last window and the current part (0: none finished). */
  rate(now: number): number {
    this.#advance(now);
    const done = this.#previous.done + this.#current.done;
    return done === 0 ? 0 : done / Math.max(1, this.#previous.busyMs + this.#current.busyMs);
  }

  /** Admits one more registration (counted in flight until `leave`), or says why not. */
  enter(now: number, limits: ShedLimits): Admission {
    this.#forgetStale(now);
    const refusal = this.#refusal(now, limits);
    if (refusal) return refusal;
    if (this.#entries.size === 0) {
      this.#busySince = now;
      this.#mark = now;
    }
    const ticket = this.#nextTicket++;
    this.#entries.set(ticket, now);
    return { admitted: true, ticket };
  }

  /** An admitted registration finished (answered, whatever the answer); a ticket already forgotten counts nothing. */
  leave(ticket: number, now: number): void {
    this.#advance(now);
    if (!this.#entries.delete(ticket)) return;
    this.#current.done += 1;
    if (this.#entries.size === 0) this.#busySince = undefined;
  }

  /** Drops the tickets admitted more than STALE_MS ago (gone without a `leave`), never counted as finished. */
  #forgetStale(now: number): void {
    for (const [ticket, admittedAt] of this.#entries) {
      if (now - admittedAt < STALE_MS) break;
      this.#advance(now);
      this.#entries.delete(ticket);
    }
    if (this.#entries.size === 0) this.#busySince = undefined;
  }

  #refusal(now: number, limits: ShedLimits): Admission | undefined {
    const inFlight = this.#entries.size;
    if (inFlight >= limits.ceiling) return { admitted: false, why: "ceiling", predictedWaitMs: Infinity };
    if (inFlight < limits.floor || this.#busySince === undefined) return undefined;
    if (now - this.#busySince < limits.budgetMs) return undefined;
    const rate = this.rate(now);
    // Busy for the budget and nothing finished in two windows: stalled, the wait is unbounded.
    const predictedWaitMs = rate > 0 ? inFlight / rate : Infinity;
    return predictedWaitMs > limits.budgetMs ? { admitted: false, why: "wait", predictedWaitMs } : undefined;
  }

  /** Counts the busy time up to `now`, then moves the window on once it has run its length (empty if two have). */
  #advance(now: number): void {
    if (this.#busySince !== undefined && now > this.#mark) {
      this.#current.busyMs += now - this.#mark;
      this.#mark = now;
    }
    const elapsed = now - this.#windowStart;
    if (elapsed < RATE_WINDOW_MS) return;
    const one = elapsed < 2 * RATE_WINDOW_MS;
    this.#previous = one ? this.#current : { done: 0, busyMs: 0 };
    this.#current = { done: 0, busyMs: 0 };
    this.#windowStart = one ? this.#windowStart + RATE_WINDOW_MS : now;
  }
}

/**
 * The limits for a request: the defaults, each overridable by the worker's configuration (a test or a deployment
 * that measured its own isolate); a value that is not a non-negative number leaves the default.
 */
export function shedLimits(overrides: { maxInFlight?: string; budgetMs?: string }): ShedLimits {
  const number = (text: string | undefined, fallback: number) => {
    const n = text === undefined || text.trim() === "" ? Number.NaN : Number(text);
    return Number.isFinite(n) && n >= 0 ? n : fallback;
  };
  const ceiling = number(overrides.maxInFlight, SHED_LIMITS.ceiling);
  return {
    floor: Math.min(SHED_LIMITS.floor, ceiling),
    ceiling,
    budgetMs: number(overrides.budgetMs, SHED_LIMITS.budgetMs),
  };
}
