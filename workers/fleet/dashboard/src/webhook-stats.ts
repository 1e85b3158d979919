// An endpoint's delivery chart (issue 30): its attempts by outcome per hour or day, the attempts' latency
// percentiles and its health (GET /api/webhooks/endpoints/{id}/stats), inside the endpoint's card.
import { api } from "./api";
import { chart, periodOf, windowPicker } from "./charts";
import { type Health, healthMark, lastFailureText } from "./health";
import { notice } from "./notice";
import { h } from "./ui";

interface Latency {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}
interface Stats {
  window: string;
  bucket: "hour" | "day";
  health: Health;
  points: { at: string; succeeded: number; retried: number; failed: number; latency_ms: Latency }[];
  totals: { succeeded: number; retried: number; failed: number };
  latency_ms: Latency;
  last_failure: { at: string; reason: string } | null;
}

const ms = (n: number | null) => (n === null ? "—" : `≤ ${n.toLocaleString("en")} ms`);

function render(endpointId: string, s: Stats): HTMLElement[] {
  const period = periodOf(s.window);
  const { succeeded, retried, failed } = s.totals;
  const state = h(
    "p",
    { class: `health health-${s.health}`, dataset: { health: s.health } },
    healthMark(s.health),
    lastFailureText(s.last_failure),
  );
  if (succeeded + retried + failed === 0) {
    return [
      state,
      h(
        "p",
        { class: "empty" },
        `No delivery attempts in ${period}. Each attempt appears here by outcome (succeeded, retried, failed) with its latency.`,
      ),
    ];
  }
  const at = s.points.map((p) => p.at);
  return [
    state,
    chart({
      id: `chart-deliveries-${endpointId}`,
      title: `Delivery attempts per ${s.bucket} (UTC)`,
      summary: `${succeeded} succeeded, ${retried} retried and ${failed} failed in ${period}; latency p50 ${ms(s.latency_ms.p50)}, p90 ${ms(s.latency_ms.p90)}, p99 ${ms(s.latency_ms.p99)}.`,
      at,
      bucket: s.bucket,
      series: [
        { label: "succeeded", values: s.points.map((p) => p.succeeded), color: "#009E73" },
        { label: "retried", values: s.points.map((p) => p.retried), color: "#E69F00" },
        { label: "failed", values: s.points.map((p) => p.failed), color: "#a40e26" },
      ],
      kind: "bars",
    }),
  ];
}

/** The endpoint's statistics block, loaded now and again when its period changes. */
export function endpointStats(endpointId: string): HTMLElement {
  const box = h("div", { class: "endpoint-chart" });
  const out = notice();
  const load = async (window: string) => {
    const result = await api<Stats>("GET", `/api/webhooks/endpoints/${endpointId}/stats?window=${window}`);
    if (!result.ok) return out.error(result);
    box.replaceChildren(...render(endpointId, result.data));
  };
  void load("24h");
  return h("div", { class: "endpoint-stats" }, windowPicker(`window-${endpointId}`, "24h", load), out, box);
}
