// The windows the activity routes answer for (issue 30), as pure arithmetic on UTC epoch hours: the last 24 hours
// by the hour, or the last 7 or 30 days by the day. Every window ends with the bucket holding `now` (partly
// elapsed) and has a fixed number of points, so a chart always has the same width and an empty hour is a zero.

export const HOUR_MS = 3_600_000;
const HOURS_PER_DAY = 24;

export const WINDOWS = ["24h", "7d", "30d"] as const;
export type WindowName = (typeof WINDOWS)[number];

export interface Window {
  name: WindowName;
  bucket: "hour" | "day";
  /** Hours per point: 1 or 24. */
  step: number;
  /** The first hour of the first point (UTC epoch hours), inclusive. */
  fromHour: number;
  /** The hour after the last point's last hour, exclusive. */
  toHour: number;
  points: number;
}

const SHAPES: Record<WindowName, { bucket: Window["bucket"]; points: number }> = {
  "24h": { bucket: "hour", points: 24 },
  "7d": { bucket: "day", points: 7 },
  "30d": { bucket: "day", points: 30 },
};

/** The UTC epoch hour holding `ms`. */
export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);

export function windowAt(name: WindowName, now: number): Window {
  const { bucket, points } = SHAPES[name];
  const step = bucket === "hour" ? 1 : HOURS_PER_DAY;
  // The bucket holding now: its hour, or its day's first hour (UTC midnight).
  const current = Math.floor(hourOf(now) / step) * step;
  const toHour = current + step;
  return { name, bucket, step, fromHour: toHour - points * step, toHour, points };
}

/** The index of the point holding `hour`, or -1 outside the window. */
export function pointOf(window: Window, hour: number): number {
  if (hour < window.fromHour || hour >= window.toHour) return -1;
  return Math.floor((hour - window.fromHour) / window.step);
}

/** Each point's first instant, ISO 8601 in UTC. */
export function pointStarts(window: Window): string[] {
  return Array.from({ length: window.points }, (_, i) =>
    new Date((window.fromHour + i * window.step) * HOUR_MS).toISOString(),
  );
}

/** A window as the answers state it. */
export function windowView(window: Window) {
  return {
    window: window.name,
    bucket: window.bucket,
    time_zone: "UTC" as const,
    from: new Date(window.fromHour * HOUR_MS).toISOString(),
    until: new Date(window.toHour * HOUR_MS).toISOString(),
  };
}
