// Delivery attempt latency as a fixed histogram (issue 30): an attempt adds one to the bucket of its duration, so an
// hour's attempts are one row however many there were, and any window's percentiles come from summed buckets.
// A percentile is reported as the upper bound of the bucket holding it (a "p99 ≤ 1,000 ms" figure): exact enough
// to see an endpoint slow down, and it never claims a precision the roll-up does not keep.
import { DELIVERY_TIMEOUT_MS } from "../../../../shared/webhooks";

/** Upper bounds (ms, inclusive) of every bucket but the last; the last holds everything slower (time-outs). */
export const LATENCY_BOUNDS_MS = [50, 100, 250, 500, 1_000, 2_500, 5_000] as const;
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** A histogram with no attempt. */
export const emptyHistogram = (): number[] => Array<number>(LATENCY_BUCKETS).fill(0);

/** The bucket of one attempt's duration. */
export function latencyBucket(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i === -1 ? LATENCY_BOUNDS_MS.length : i;
}

/** A stored histogram (JSON text of bucket counts), tolerant of a shorter or empty array. */
export function parseHistogram(text: string | null | undefined): number[] {
  const counts = emptyHistogram();
  try {
    const parsed: unknown = JSON.parse(text ?? "[]");
    if (Array.isArray(parsed)) {
      for (let i = 0; i < Math.min(parsed.length, LATENCY_BUCKETS); i++) counts[i] = Number(parsed[i]) || 0;
    }
  } catch {
    // an unreadable row counts as empty
  }
  return counts;
}

export function addHistograms(into: number[], from: readonly number[]): number[] {
  for (let i = 0; i < into.length; i++) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
  return into;
}

/** The upper bound (ms) of the bucket holding the q-quantile (0 < q ≤ 1); null when there were no attempts. */
export function percentile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return LATENCY_BOUNDS_MS[i] ?? DELIVERY_TIMEOUT_MS;
  }
  return DELIVERY_TIMEOUT_MS;
}

export interface Percentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export const percentiles = (histogram: readonly number[]): Percentiles => ({
  p50: percentile(histogram, 0.5),
  p90: percentile(histogram, 0.9),
  p99: percentile(histogram, 0.99),
});
