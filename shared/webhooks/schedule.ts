// Webhook delivery limits and retry schedule as data (service-spec "Limits" and Events rules 3-4; FLT-08 jitter),
// plus the pure helpers the dispatcher needs to pick the next attempt and record why one failed.

/** Delay after failed attempt n, at index n - 1 (n = 1..5): 1 min, 5 min, 30 min, 2 h, 8 h. */
export const RETRY_DELAYS_MS: readonly number[] = [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000];

/** Attempts in all, the first included: after the 6th failure there is no 7th. */
export const MAX_ATTEMPTS = 6;

/** No response within this long counts as a failure (service-spec Events rule 3). */
export const DELIVERY_TIMEOUT_MS = 8_000;

/** Each delay may stretch or shrink by this share, so endpoints that failed together do not retry together. */
export const RETRY_JITTER_RATIO = 0.1;

/** Longest error_message kept: connection errors are recorded, never reflected at length (WH-09). */
export const MAX_ERROR_MESSAGE_LENGTH = 200;

/**
 * When to try again after `attempt` (1-based) failed at `now` (ms), or null once MAX_ATTEMPTS have failed.
 * `jitter` in [-1, 1] (e.g. `Math.random() * 2 - 1`) moves the delay by up to ±10%; values outside are clamped.
 */
export function nextAttemptAt(attempt: number, now: number, jitter = 0): number | null {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be an integer >= 1, got ${attempt}`);
  const delay = RETRY_DELAYS_MS[attempt - 1];
  if (delay === undefined || attempt >= MAX_ATTEMPTS) return null;
  const spread = Number.isFinite(jitter) ? Math.min(1, Math.max(-1, jitter)) : 0;
  return now + Math.round(delay * (1 + RETRY_JITTER_RATIO * spread));
}

/**
 * A receiver's `Retry-After` (delta-seconds or HTTP-date) as a delay in ms from `now`, or null when absent or
 * unreadable (WH-12: a 429 with Retry-After: 120 waits at least 120 s). The caller takes the later of this and
 * nextAttemptAt, and may cap it.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its month; without this, Date.parse reads "-5" as a year.
  const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The delivery row's error_message: `http_<status>` for an answer, else the connection error text. */
export function errorMessage(result: { status?: number; error?: string }): string {
  if (result.status !== undefined) return `http_${result.status}`;
  const text = result.error?.trim();
  return text ? text.slice(0, MAX_ERROR_MESSAGE_LENGTH) : "connection_error";
}
