// Roll-up rows laid out on a window's points (issue 30): every point present (an empty hour is a zero), each kind
// named, and the log's size at each point's end derived from its size now less what was registered after. Pure.
import { REPLAY_ORDER } from "../../../../shared/audit/bundle-format";
import { lastFailureOf, OUTCOMES, outcomeTotals } from "./health";
import { addHistograms, emptyHistogram, type Percentiles, parseHistogram, percentiles } from "./latency";
import type { ActivityRows, DeliveryHourRow } from "./store";
import { pointOf, pointStarts, type Window } from "./windows";

export const KINDS = REPLAY_ORDER;
type Kind = (typeof KINDS)[number];
export type KindCounts = Record<Kind, number>;

const noKinds = (): KindCounts => Object.fromEntries(KINDS.map((k) => [k, 0])) as KindCounts;
const isKind = (kind: string): kind is Kind => (KINDS as readonly string[]).includes(kind);

export interface ActivityPoint {
  at: string;
  registrations: number;
  by_kind: KindCounts;
  /** Leaves in the log at the point's end (the integrated log: a leaf counts once its checkpoint covers it). */
  log_size: number;
  refused: { project: number; caller: number };
}

export function activitySeries(window: Window, rows: ActivityRows) {
  const points: ActivityPoint[] = pointStarts(window).map((at) => ({
    at,
    registrations: 0,
    by_kind: noKinds(),
    log_size: 0,
    refused: { project: 0, caller: 0 },
  }));
  const totals = { registrations: 0, by_kind: noKinds(), refused: { project: 0, caller: 0 } };
  for (const row of rows.registrations) {
    const point = points[pointOf(window, row.hour)];
    if (!point || !isKind(row.kind)) continue;
    point.registrations += row.count;
    point.by_kind[row.kind] += row.count;
    totals.registrations += row.count;
    totals.by_kind[row.kind] += row.count;
  }
  for (const row of rows.refusals) {
    const point = points[pointOf(window, row.hour)];
    if (!point || (row.bucket !== "project" && row.bucket !== "caller")) continue;
    point.refused[row.bucket] += row.count;
    totals.refused[row.bucket] += row.count;
  }
  let size = rows.logSize;
  for (let i = points.length - 1; i >= 0; i--) {
    const point = points[i] as ActivityPoint;
    point.log_size = Math.max(0, size);
    size -= point.registrations;
  }
  return { points, totals };
}

export interface DeliveryPoint {
  at: string;
  succeeded: number;
  retried: number;
  failed: number;
  latency_ms: Percentiles;
}

export function deliverySeries(window: Window, rows: readonly DeliveryHourRow[]) {
  const histograms = Array.from({ length: window.points }, emptyHistogram);
  const counts = Array.from({ length: window.points }, () => ({ succeeded: 0, retried: 0, failed: 0 }));
  const all = emptyHistogram();
  const inWindow = rows.filter((row) => pointOf(window, row.hour) !== -1);
  for (const row of inWindow) {
    const i = pointOf(window, row.hour);
    const count = counts[i] as (typeof counts)[number];
    for (const outcome of OUTCOMES) count[outcome] += row[outcome];
    const hour = parseHistogram(row.histogram);
    addHistograms(histograms[i] as number[], hour);
    addHistograms(all, hour);
  }
  const points: DeliveryPoint[] = pointStarts(window).map((at, i) => ({
    at,
    ...(counts[i] as (typeof counts)[number]),
    latency_ms: percentiles(histograms[i] as number[]),
  }));
  return { points, totals: outcomeTotals(inWindow), latency_ms: percentiles(all), last_failure: lastFailureOf(rows) };
}
