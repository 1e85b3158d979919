// Time helpers. Pure code never reads the clock: `now` (epoch milliseconds) is passed in from the edge.

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** ISO 8601 UTC with milliseconds, e.g. 2026-04-24T07:00:00.000Z. */
export function isoMs(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** ISO 8601 UTC at second precision, e.g. 2026-04-22T12:00:00Z (the orangecheck-auth message form). */
export function isoSeconds(epochMs: number): string {
  return new Date(Math.floor(epochMs / SECOND) * SECOND).toISOString().replace(".000Z", "Z");
}

export function epochSeconds(epochMs: number): number {
  return Math.floor(epochMs / SECOND);
}
