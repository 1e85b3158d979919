// An endpoint's health line (issue 30), from its hourly delivery roll-ups of the last 24 hours: paused when its
// owner paused it; idle with no attempt; failing when at least half the attempts of its latest hour with attempts
// did not succeed; degrading when any attempt of the 24 hours did not succeed; green otherwise. Pure.

export const HEALTH = ["green", "degrading", "failing", "paused", "idle"] as const;
export type Health = (typeof HEALTH)[number];

/** The window a health line is read over: the last 24 hours by the hour (windows.ts). */
export const HEALTH_WINDOW = "24h";
/** The share of the latest hour's attempts that did not succeed from which an endpoint is failing. */
export const FAILING_SHARE = 0.5;

export interface HourOutcomes {
  hour: number;
  succeeded: number;
  retried: number;
  failed: number;
  lastFailureAt: number | null;
  lastFailure: string | null;
}

export interface LastFailure {
  at: number;
  reason: string;
}

export const OUTCOMES = ["succeeded", "retried", "failed"] as const;
export type OutcomeCounts = Record<(typeof OUTCOMES)[number], number>;

const attempts = (h: HourOutcomes) => h.succeeded + h.retried + h.failed;

/** The attempts of the given hours by outcome. */
export function outcomeTotals(hours: readonly HourOutcomes[]): OutcomeCounts {
  const totals = { succeeded: 0, retried: 0, failed: 0 };
  for (const h of hours) for (const outcome of OUTCOMES) totals[outcome] += h[outcome];
  return totals;
}

/** The latest failure recorded in the given hours. */
export function lastFailureOf(hours: readonly HourOutcomes[]): LastFailure | null {
  let last: LastFailure | null = null;
  for (const h of hours) {
    if (h.lastFailureAt !== null && (last === null || h.lastFailureAt > last.at)) {
      last = { at: h.lastFailureAt, reason: h.lastFailure ?? "failed" };
    }
  }
  return last;
}

export function healthOf(active: boolean, hours: readonly HourOutcomes[]): Health {
  if (!active) return "paused";
  const busy = hours.filter((h) => attempts(h) > 0);
  if (busy.length === 0) return "idle";
  const latest = busy.reduce((a, b) => (b.hour > a.hour ? b : a));
  if ((latest.retried + latest.failed) / attempts(latest) >= FAILING_SHARE) return "failing";
  return busy.some((h) => h.retried + h.failed > 0) ? "degrading" : "green";
}
