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

/**
 * Epoch ms of the UTC instant named by `match` (groups 1-6: year, month, day, hour, minute, second; group 7: an
 * optional decimal fraction of a second), or undefined for a date Date would roll over (Feb 30 → Mar 2).
 */
export function utcInstant(match: RegExpExecArray): number | undefined {
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // setUTCFullYear, not Date.UTC: Date.UTC would shift years 0-99 to 1900-1999.
  const back = new Date(0);
  back.setUTCFullYear(year, month - 1, day);
  back.setUTCHours(hour, minute, second, Number((match[7] ?? "").padEnd(3, "0").slice(0, 3)));
  const real =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    back.getUTCHours() === hour &&
    back.getUTCMinutes() === minute &&
    back.getUTCSeconds() === second;
  return real ? back.getTime() : undefined;
}

/**
 * True when `timestampSeconds` (unix seconds, as webhook signatures carry it) lies within ±`toleranceSeconds` of
 * `now` (ms): too old is a replay, too new a forged clock. Anything not a finite number is outside.
 */
export function withinSeconds(timestampSeconds: unknown, now: number, toleranceSeconds: number): boolean {
  return (
    typeof timestampSeconds === "number" &&
    Number.isFinite(timestampSeconds) &&
    Math.abs(epochSeconds(now) - timestampSeconds) <= toleranceSeconds
  );
}
