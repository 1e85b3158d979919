// The project overview's first screen (issue 30): what is happening. The activity of a window (registrations by
// kind, the log's size, refused requests; GET /api/projects/{id}/activity) as charts, and a health line per webhook
// endpoint for admins (GET /api/webhooks/health). Empty states say what will appear.
import { api } from "./api";
import { type ChartSeries, chart, periodOf, windowPicker } from "./charts";
import { type Health, healthMark, lastFailureText } from "./health";
import { notice } from "./notice";
import type { ScreenContext } from "./types";
import { h, section } from "./ui";

type Kind = "delegation" | "subdelegation" | "revocation" | "action" | "pledge" | "outcome" | "abandonment";
interface Activity {
  window: string;
  bucket: "hour" | "day";
  points: {
    at: string;
    registrations: number;
    by_kind: Record<Kind, number>;
    log_size: number;
    refused: { project: number; caller: number };
  }[];
  totals: { registrations: number; by_kind: Record<Kind, number>; refused: { project: number; caller: number } };
  log_size: number;
  limits: { project_per_minute: number; caller_per_minute: number };
}

export interface HealthLine {
  endpoint_id: string;
  url: string;
  health: Health;
  last_24h: { succeeded: number; retried: number; failed: number };
  last_failure: { at: string; reason: string } | null;
}

/** A colour per kind, distinguishable for the common colour-vision deficiencies (Okabe–Ito). */
const KIND_COLORS: Record<Kind, string> = {
  action: "#0072B2",
  delegation: "#E69F00",
  subdelegation: "#56B4E9",
  revocation: "#D55E00",
  pledge: "#009E73",
  outcome: "#CC79A7",
  abandonment: "#555555",
};
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

function activityCharts(a: Activity): HTMLElement[] {
  const at = a.points.map((p) => p.at);
  const period = periodOf(a.window);
  const kinds = (Object.keys(KIND_COLORS) as Kind[]).filter((k) => a.totals.by_kind[k] > 0);
  const charts: HTMLElement[] = [];
  if (a.totals.registrations === 0) {
    charts.push(
      h(
        "p",
        { class: "empty", id: "activity-empty" },
        `No registrations in ${period}. Each envelope this project registers appears here, by kind, once the log's next checkpoint covers it (within about a second).`,
      ),
    );
  } else {
    const byKind = kinds.map((k) => `${k} ${a.totals.by_kind[k].toLocaleString("en")}`).join(", ");
    const series: ChartSeries[] = kinds.map((k) => ({
      label: k,
      values: a.points.map((p) => p.by_kind[k]),
      color: KIND_COLORS[k],
    }));
    charts.push(
      chart({
        id: "chart-registrations",
        title: `Registrations per ${a.bucket} (UTC)`,
        summary: `${plural(a.totals.registrations, "registration")} in ${period} (${byKind}).`,
        at,
        bucket: a.bucket,
        series,
        kind: "bars",
      }),
      chart({
        id: "chart-log-size",
        title: "Log size",
        summary: `The project's log holds ${plural(a.log_size, "leaf", "leaves")}; the line is its size at the end of each ${a.bucket}.`,
        at,
        bucket: a.bucket,
        series: [{ label: "leaves", values: a.points.map((p) => p.log_size), color: "#b35900" }],
        kind: "line",
      }),
    );
  }
  const refused = a.totals.refused.project + a.totals.refused.caller;
  const limits = `${a.limits.project_per_minute} requests a minute for the project, ${a.limits.caller_per_minute} for each caller`;
  if (refused === 0) {
    charts.push(
      h(
        "p",
        { class: "empty", id: "refusals-empty" },
        `No request was refused by the project's rate limits in ${period} (${limits}).`,
      ),
    );
  } else {
    charts.push(
      chart({
        id: "chart-refusals",
        title: `Refused requests per ${a.bucket} (UTC)`,
        summary: `${plural(refused, "request")} refused in ${period}: ${a.totals.refused.project} by the project's limit, ${a.totals.refused.caller} by a caller's share (${limits}).`,
        at,
        bucket: a.bucket,
        series: [
          { label: "project limit", values: a.points.map((p) => p.refused.project), color: "#a40e26" },
          { label: "caller's share", values: a.points.map((p) => p.refused.caller), color: "#E69F00" },
        ],
        kind: "bars",
      }),
    );
  }
  return charts;
}

/** One endpoint's line: its state as a word and a colour, the last 24 hours' attempts, the last failure. */
export function healthLine(line: HealthLine, link?: string): HTMLElement {
  const { succeeded, retried, failed } = line.last_24h;
  const url = link ? h("a", { href: link }, line.url) : h("span", {}, line.url);
  return h(
    "li",
    { class: `health health-${line.health}`, dataset: { endpoint: line.endpoint_id, health: line.health } },
    healthMark(line.health),
    " ",
    h("span", { class: "health-url" }, url),
    h(
      "span",
      { class: "health-counts" },
      ` 24 h: ${succeeded} succeeded, ${retried} retried, ${failed} failed`,
      lastFailureText(line.last_failure),
    ),
  );
}

async function healthSection(ctx: ScreenContext): Promise<HTMLElement> {
  const out = notice();
  const body = h("div", { id: "webhook-health" });
  if (ctx.role !== "admin" && ctx.role !== "owner") {
    body.append(h("p", { class: "hint" }, "Webhook health is shown to the project's admins and owner."));
  } else {
    const result = await api<{ endpoints: HealthLine[] }>("GET", `/api/webhooks/health?project_id=${ctx.project.id}`);
    if (!result.ok) out.error(result);
    else if (result.data.endpoints.length === 0)
      body.append(
        h(
          "p",
          { class: "empty" },
          "No webhook endpoints. Add one under Webhooks: each gets a health line here (healthy, degrading, failing, paused or idle) from its last 24 hours of deliveries.",
        ),
      );
    else
      body.append(
        h(
          "ul",
          { class: "health-lines" },
          result.data.endpoints.map((line) => healthLine(line, `#/p/${ctx.project.id}/webhooks`)),
        ),
      );
  }
  return section("Webhook health", body, out);
}

/** The overview's first sections: the activity of the chosen window and the endpoints' health. */
export async function activitySections(ctx: ScreenContext, window = "24h"): Promise<HTMLElement> {
  const box = h("div", { id: "activity" });
  const out = notice();
  const load = async (chosen: string) => {
    const result = await api<Activity>("GET", `/api/projects/${ctx.project.id}/activity?window=${chosen}`);
    if (!result.ok) {
      out.error(result);
      return;
    }
    box.replaceChildren(...activityCharts(result.data));
  };
  await load(window);
  const activity = section("Activity", windowPicker("activity-window", window, load), out, box);
  return h("div", { class: "overview-charts" }, activity, await healthSection(ctx));
}
