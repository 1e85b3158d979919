// The dashboard's charts (issue 30), drawn by uPlot: a small (≈50 KB), maintained canvas library with no framework,
// no inline script and no eval, so it runs under the dashboard's CSP as part of its bundle. Every chart is a figure
// with a caption that says what it shows in words, the canvas hidden from screen readers, and the same numbers as a
// table under "The numbers". Bars stack by drawing each series' running total from the top one down.
import uPlot from "uplot";
import { h, scrollBox } from "./ui";

export interface ChartSeries {
  label: string;
  values: number[];
  color: string;
}

export interface ChartSpec {
  id: string;
  title: string;
  /** One sentence of what the chart says, for everyone (the caption). */
  summary: string;
  /** The points' start instants (ISO). */
  at: string[];
  /** "hour" labels show the time, "day" the date (UTC). */
  bucket: "hour" | "day";
  series: ChartSeries[];
  kind: "bars" | "line";
  /** A unit for the y axis's numbers, e.g. "ms". */
  unit?: string;
}

const HEIGHT = 180;
const seconds = (iso: string) => Date.parse(iso) / 1000;
const label = (bucket: ChartSpec["bucket"], iso: string) =>
  bucket === "hour" ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : `${iso.slice(0, 10)} (UTC day)`;

const tickLabel = (bucket: ChartSpec["bucket"], t: number) => {
  const iso = new Date(t * 1000).toISOString();
  return bucket === "hour" && !iso.startsWith("00:00", 11) ? iso.slice(11, 16) : iso.slice(5, 10);
};

/** Running totals, top series first: drawn in that order each bar shows its own part of the stack. */
function stacked(series: readonly ChartSeries[]): number[][] {
  const sums = series.map((s) => [...s.values]);
  for (let i = sums.length - 2; i >= 0; i--) {
    const here = sums[i] as number[];
    const below = sums[i + 1] as number[];
    for (let j = 0; j < here.length; j++) here[j] = (here[j] ?? 0) + (below[j] ?? 0);
  }
  return sums;
}

function numbersTable(spec: ChartSpec): HTMLElement {
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, "Period"),
    spec.series.map((s) => h("th", { scope: "col" }, s.label)),
  );
  const rows = spec.at.map((at, i) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, label(spec.bucket, at)),
      spec.series.map((s) => h("td", {}, String(s.values[i] ?? 0))),
    ),
  );
  return h(
    "details",
    { class: "numbers" },
    h("summary", {}, "The numbers"),
    scrollBox(spec.title, h("table", {}, h("caption", {}, spec.title), h("thead", {}, head), h("tbody", {}, rows))),
  );
}

/**
 * A figure with the chart, drawn once the figure is in the page (uPlot measures its container) and redrawn to the
 * container's width when it changes. `data-points` is the number of points uPlot holds, read back from it.
 */
export function chart(spec: ChartSpec): HTMLElement {
  const canvasBox = h("div", { class: "chart-canvas", "aria-hidden": "true" });
  const figure = h(
    "figure",
    { class: "chart", id: spec.id, "aria-labelledby": `${spec.id}-caption` },
    h("figcaption", { id: `${spec.id}-caption` }, h("strong", {}, spec.title), " ", spec.summary),
    canvasBox,
    numbersTable(spec),
  );
  const bars = spec.kind === "bars";
  const values = bars ? stacked(spec.series) : spec.series.map((s) => s.values);
  const data: uPlot.AlignedData = [spec.at.map(seconds), ...values];
  const draw = () => {
    if (figure.dataset.drawn) return;
    const width = Math.max(200, canvasBox.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: HEIGHT,
        cursor: { drag: { x: false, y: false } },
        legend: { live: false },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [
          {
            stroke: "#57606a",
            grid: { stroke: "#eaeef2" },
            space: 60,
            // UTC, 24-hour: "14:00", or a day's "11-27" (the API's points are UTC hours and days).
            values: (_u, ticks) => ticks.map((t) => tickLabel(spec.bucket, t)),
          },
          {
            stroke: "#57606a",
            grid: { stroke: "#eaeef2" },
            size: 50,
            values: (_u, ticks) =>
              ticks.map(
                (t) => `${Number.isInteger(t) ? t : ""}${spec.unit && Number.isInteger(t) ? ` ${spec.unit}` : ""}`,
              ),
          },
        ],
        series: [
          {},
          ...spec.series.map((s) => ({
            label: s.label,
            stroke: s.color,
            fill: bars ? s.color : undefined,
            width: bars ? 0 : 2,
            points: { show: !bars },
            ...(bars && { paths: uPlot.paths.bars?.({ size: [0.7, 40] }) }),
          })),
        ],
      },
      data,
      canvasBox,
    );
    figure.dataset.drawn = "true";
    figure.dataset.points = String(plot.data[0].length);
    new ResizeObserver(() => {
      const next = Math.max(200, canvasBox.clientWidth);
      if (next !== plot.width) plot.setSize({ width: next, height: HEIGHT });
    }).observe(canvasBox);
  };
  // Drawn when the figure is attached (the screens build before they insert); a figure never attached is let go.
  let frames = 0;
  const wait = () => {
    if (figure.isConnected) draw();
    else if (frames++ < 120) requestAnimationFrame(wait);
  };
  queueMicrotask(wait);
  return figure;
}

/** The API's windows, as the captions say them. */
const PERIODS: Record<string, string> = { "24h": "last 24 hours", "7d": "last 7 days", "30d": "last 30 days" };

/** "the last 24 hours" for the window "24h" (its id when the dashboard does not know it). */
export const periodOf = (window: string): string => (PERIODS[window] ? `the ${PERIODS[window]}` : window);

/** The window picker every chart section shares: 24 hours, 7 or 30 days. */
export function windowPicker(id: string, current: string, onchange: (window: string) => unknown): HTMLElement {
  const choice = h(
    "select",
    { id, onchange: (e: Event) => onchange((e.target as HTMLSelectElement).value) },
    Object.entries(PERIODS).map(([value, words]) =>
      h("option", { value, selected: value === current }, `${words[0]?.toUpperCase()}${words.slice(1)}`),
    ),
  );
  return h("label", { class: "window", for: id }, "Period ", choice);
}
