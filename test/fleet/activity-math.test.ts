// The activity roll-ups' arithmetic (issue 30), without a worker: windows in UTC hours and days with their edges,
// latency buckets and percentiles, the health line's rules, and rows laid out on a window's points.
import { describe, expect, it } from "vitest";
import { healthOf, lastFailureOf } from "../../workers/fleet/src/activity/health";
import { LATENCY_BOUNDS_MS, latencyBucket, parseHistogram, percentile } from "../../workers/fleet/src/activity/latency";
import { activitySeries, deliverySeries } from "../../workers/fleet/src/activity/series";
import type { DeliveryHourRow } from "../../workers/fleet/src/activity/store";
import { HOUR_MS, hourOf, pointOf, pointStarts, windowAt, windowView } from "../../workers/fleet/src/activity/windows";

const AT = Date.UTC(2026, 10, 27, 13, 40, 5); // 2026-11-27T13:40:05Z
const hour = (iso: string) => hourOf(Date.parse(iso));

describe("windows (UTC)", () => {
  it("24h: the current hour and the 23 before it, by the hour", () => {
    const w = windowAt("24h", AT);
    expect(windowView(w)).toEqual({
      window: "24h",
      bucket: "hour",
      time_zone: "UTC",
      from: "2026-11-26T14:00:00.000Z",
      until: "2026-11-27T14:00:00.000Z",
    });
    expect(w.points).toBe(24);
    expect(pointOf(w, hour("2026-11-26T14:00:00Z"))).toBe(0);
    expect(pointOf(w, hour("2026-11-26T13:59:59.999Z"))).toBe(-1);
    expect(pointOf(w, hour("2026-11-27T13:59:59.999Z"))).toBe(23);
    expect(pointOf(w, hour("2026-11-27T14:00:00Z"))).toBe(-1);
    expect(pointStarts(w).at(-1)).toBe("2026-11-27T13:00:00.000Z");
  });

  it("7d and 30d: whole UTC days, today last", () => {
    const week = windowAt("7d", AT);
    expect(windowView(week)).toMatchObject({
      bucket: "day",
      from: "2026-11-21T00:00:00.000Z",
      until: "2026-11-28T00:00:00.000Z",
    });
    expect(pointOf(week, hour("2026-11-21T00:00:00Z"))).toBe(0);
    expect(pointOf(week, hour("2026-11-20T23:59:59Z"))).toBe(-1);
    expect(pointOf(week, hour("2026-11-26T23:59:59Z"))).toBe(5);
    expect(pointOf(week, hour("2026-11-27T00:00:00Z"))).toBe(6);
    const month = windowAt("30d", AT);
    expect(month.points).toBe(30);
    expect(windowView(month).from).toBe("2026-10-29T00:00:00.000Z");
    // At midnight exactly the new day is the last point.
    expect(windowView(windowAt("7d", Date.UTC(2026, 10, 28))).until).toBe("2026-11-29T00:00:00.000Z");
  });
});

describe("latency histogram", () => {
  it("buckets by inclusive upper bounds; slower than the last bound is the last bucket", () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(50)).toBe(0);
    expect(latencyBucket(51)).toBe(1);
    expect(latencyBucket(5_000)).toBe(LATENCY_BOUNDS_MS.length - 1);
    expect(latencyBucket(8_000)).toBe(LATENCY_BOUNDS_MS.length);
  });

  it("percentiles are the upper bound of the bucket holding the rank; none without attempts", () => {
    const h = parseHistogram(JSON.stringify([90, 0, 9, 0, 0, 0, 0, 1]));
    expect(percentile(h, 0.5)).toBe(50);
    expect(percentile(h, 0.9)).toBe(50);
    expect(percentile(h, 0.91)).toBe(250);
    expect(percentile(h, 0.99)).toBe(250);
    expect(percentile(h, 1)).toBe(8_000);
    expect(percentile(parseHistogram("[]"), 0.5)).toBeNull();
    expect(parseHistogram("not json")).toEqual(Array(LATENCY_BOUNDS_MS.length + 1).fill(0));
  });
});

describe("health line", () => {
  const row = (h: number, succeeded: number, retried = 0, failed = 0) => ({
    hour: h,
    succeeded,
    retried,
    failed,
    lastFailureAt: retried + failed > 0 ? h * HOUR_MS + 1 : null,
    lastFailure: retried + failed > 0 ? `http_50${h % 10}` : null,
  });

  it("paused beats everything; no attempt is idle", () => {
    expect(healthOf(false, [row(1, 0, 5)])).toBe("paused");
    expect(healthOf(true, [])).toBe("idle");
    expect(healthOf(true, [row(1, 0)])).toBe("idle");
  });

  it("failing from half of the latest busy hour; degrading on any failure in the hours; green otherwise", () => {
    expect(healthOf(true, [row(1, 10), row(2, 3)])).toBe("green");
    expect(healthOf(true, [row(1, 1, 1), row(2, 4)])).toBe("degrading");
    expect(healthOf(true, [row(1, 10), row(2, 1, 1)])).toBe("failing");
    expect(healthOf(true, [row(1, 10), row(2, 2, 0, 1)])).toBe("degrading");
    // An empty later hour does not hide the latest hour with attempts.
    expect(healthOf(true, [row(2, 0, 0, 3), row(3, 0)])).toBe("failing");
  });

  it("the last failure is the latest of the hours", () => {
    expect(lastFailureOf([row(4, 0, 1), row(7, 1, 1), row(5, 0, 0, 1)])).toEqual({
      at: 7 * HOUR_MS + 1,
      reason: "http_507",
    });
    expect(lastFailureOf([row(4, 2)])).toBeNull();
  });
});

describe("series", () => {
  it("every point present, kinds counted, the log's size at each point's end", () => {
    const w = windowAt("24h", AT);
    const h0 = hourOf(AT);
    const { points, totals } = activitySeries(w, {
      registrations: [
        { hour: h0, kind: "action", count: 5 },
        { hour: h0, kind: "delegation", count: 1 },
        { hour: h0 - 23, kind: "action", count: 2 },
        { hour: h0 - 30, kind: "action", count: 99 }, // outside: ignored
        { hour: h0, kind: "unknown", count: 7 }, // not a kind: ignored
      ],
      refusals: [{ hour: h0 - 1, bucket: "caller", count: 3 }],
      logSize: 20,
    });
    expect(points).toHaveLength(24);
    expect(points[23]).toMatchObject({ registrations: 6, log_size: 20 });
    expect(points[23]?.by_kind).toMatchObject({ action: 5, delegation: 1, pledge: 0 });
    expect(points[22]).toMatchObject({ registrations: 0, log_size: 14, refused: { project: 0, caller: 3 } });
    expect(points[0]).toMatchObject({ registrations: 2, log_size: 14 });
    expect(totals).toMatchObject({ registrations: 8, refused: { project: 0, caller: 3 } });
  });

  it("deliveries: outcomes per point and over the window, percentiles from the summed histograms", () => {
    const w = windowAt("7d", AT);
    const h0 = hourOf(AT);
    const base = { lastFailureAt: null, lastFailure: null, endpointId: "e" };
    const rows: DeliveryHourRow[] = [
      { ...base, hour: h0, succeeded: 3, retried: 0, failed: 0, histogram: "[3]" },
      { ...base, hour: h0 - 1, succeeded: 0, retried: 1, failed: 0, histogram: "[0,0,0,0,0,0,0,1]" },
      {
        ...base,
        hour: h0 - 48,
        succeeded: 1,
        retried: 0,
        failed: 1,
        histogram: "[0,2]",
        lastFailureAt: 5,
        lastFailure: "timeout",
      },
    ];
    const s = deliverySeries(w, rows);
    expect(s.points).toHaveLength(7);
    expect(s.points[6]).toMatchObject({ succeeded: 3, retried: 1, failed: 0, latency_ms: { p50: 50, p99: 8_000 } });
    expect(s.points[4]).toMatchObject({ succeeded: 1, failed: 1, latency_ms: { p50: 100 } });
    expect(s.points[5]?.latency_ms).toEqual({ p50: null, p90: null, p99: null });
    expect(s.totals).toEqual({ succeeded: 4, retried: 1, failed: 1 });
    expect(s.latency_ms).toEqual({ p50: 50, p90: 8_000, p99: 8_000 });
    expect(s.last_failure).toEqual({ at: 5, reason: "timeout" });
  });
});
