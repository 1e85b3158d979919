// Webhook endpoints: register one (its signing secret is shown once), pause, resume (and recover the pause's events:
// webhook-recovery.ts), send a test ping, delete; each endpoint lists its last 25 deliveries inline with a retry
// button (rule 11: endpoint_paused, already_succeeded), after its delivery chart (webhook-stats.ts).
// Routes: /api/webhook-events, /api/webhooks/endpoints[/{id}[/test|/recover]], /api/webhooks/deliveries[/{id}/retry].
import { api, query } from "./api";
import { field, secretOnce, table, timeColumn, unlessArchived } from "./forms";
import { type Notice, notice } from "./notice";
import type { ScreenContext } from "./types";
import { badge, h, section, time } from "./ui";
import { recoverButton } from "./webhook-recovery";
import { endpointStats } from "./webhook-stats";

/** The spec's dashboard log: the last 25 deliveries of each endpoint, inline. */
const INLINE_DELIVERIES = 25;

interface Endpoint {
  id: string;
  url: string;
  active: boolean;
  event_types: string[];
  paused_at: string | null;
  created_at: string;
}

interface Delivery {
  id: string;
  event_type: string;
  state: string;
  status_code: number | null;
  attempt_count: number;
  next_retry_at: string | null;
  succeeded_at: string | null;
  error_message: string | null;
  idempotency_key: string;
  created_at: string;
}

export async function webhooksScreen(ctx: ScreenContext) {
  const { project, container } = ctx;
  const catalogue = await api<{ events: { type: string }[] }>("GET", "/api/webhook-events");
  const types = catalogue.ok ? catalogue.data.events.map((e) => e.type).filter((t) => t !== "test.ping") : [];
  const inputs = types.map((type) => h("input", { type: "checkbox", name: "event", value: type, checked: true }));
  const createOut = notice();
  const shown = h("div", { id: "endpoint-secret" });
  const url = field("Endpoint URL (https)", {
    name: "url",
    type: "url",
    required: true,
    id: "endpoint-url",
    size: "50",
  });
  const list = h("div", { id: "endpoint-list" });
  // Pause, resume and delete redraw the list, so their outcome is told above it.
  const listOut = notice("endpoint-status");
  const create = async (event: Event) => {
    event.preventDefault();
    const eventTypes = inputs.filter((i) => i.checked).map((i) => i.value);
    const result = await api<{ endpoint: Endpoint; secret: string }>("POST", "/api/webhooks/endpoints", {
      project_id: project.id,
      url: url.input.value.trim(),
      event_types: eventTypes.length ? eventTypes : ["*"],
    });
    const registered = () => {
      url.input.value = "";
      if (result.ok)
        shown.replaceChildren(secretOnce(`Signing secret of ${result.data.endpoint.url}`, result.data.secret));
      return loadEndpoints(ctx, list, listOut);
    };
    await createOut.settle(result, registered, (r) => `Registered ${r.data.endpoint.url}.`);
  };
  const boxes = inputs.map((input) => h("label", { class: "check" }, input, input.value));
  container.replaceChildren(
    section(
      "Register an endpoint",
      unlessArchived(
        project.archived,
        h(
          "form",
          { onsubmit: create },
          url,
          h("fieldset", {}, h("legend", {}, "Events (none checked: all)"), boxes),
          h("button", { type: "submit", id: "endpoint-create" }, "Register"),
          createOut,
        ),
        shown,
      ),
    ),
    h("h3", {}, "Endpoints"),
    listOut,
    list,
  );
  await loadEndpoints(ctx, list, listOut);
}

async function loadEndpoints(ctx: ScreenContext, list: HTMLElement, listOut: Notice) {
  const result = await api<{ endpoints: Endpoint[] }>(
    "GET",
    `/api/webhooks/endpoints${query({ project_id: ctx.project.id })}`,
  );
  if (!result.ok) return listOut.error(result);
  const { endpoints } = result.data;
  list.replaceChildren(
    ...(endpoints.length ? endpoints.map((e) => endpointCard(ctx, e, list, listOut)) : [h("p", {}, "None yet.")]),
  );
}

function endpointCard(ctx: ScreenContext, endpoint: Endpoint, list: HTMLElement, listOut: Notice) {
  const out = notice();
  const deliveries = h("div", { class: "deliveries" });
  const refresh = () => loadDeliveries(ctx, endpoint, deliveries, out);
  const call = async (method: string, path: string, body: unknown, done: string) => {
    const result = await api(method, path, body);
    if (method === "PATCH" || method === "DELETE")
      await listOut.settle(result, () => loadEndpoints(ctx, list, listOut), done);
    else await out.settle(result, refresh, done);
  };
  const base = `/api/webhooks/endpoints/${endpoint.id}`;
  const button = (label: string, onclick: () => unknown, danger = false) =>
    h("button", { type: "button", onclick, class: danger ? "danger" : undefined }, label);
  const changes = [
    endpoint.active
      ? button("Pause", () => call("PATCH", base, { active: false }, "Paused."))
      : button("Resume", () => call("PATCH", base, { active: true }, "Resumed.")),
    " ",
    button("Send test ping", () => call("POST", `${base}/test`, undefined, "Test ping queued.")),
    " ",
    ...recoverButton(endpoint, out, refresh),
  ];
  const remove = () => confirm(`Delete the endpoint ${endpoint.url}?`) && call("DELETE", base, undefined, "Deleted.");
  const card = section(
    endpoint.url,
    h(
      "p",
      { class: "meta" },
      badge(endpoint.active ? "active" : "paused"),
      " ",
      h("code", {}, endpoint.id),
      ` · events: ${endpoint.event_types.join(", ")} · since ${time(endpoint.created_at)}`,
    ),
    h(
      "p",
      { class: "actions" },
      ctx.project.archived ? [] : changes,
      button("Refresh deliveries", refresh),
      ctx.project.archived ? [] : [" ", button("Delete", remove, true)],
    ),
    out,
    endpointStats(endpoint.id),
    deliveries,
  );
  card.classList.add("endpoint");
  card.dataset.endpoint = endpoint.id;
  void refresh();
  return card;
}

/** A manual retry's outcome: green only when the attempt succeeded; a failed attempt is pending again (amber). */
function toldRetry(out: Notice, d: Delivery) {
  const text = `Retried: attempt ${d.attempt_count}, ${d.state}${d.error_message ? ` (${d.error_message})` : ""}.`;
  if (d.state === "succeeded") out.ok(text);
  else out.warn(text);
}

async function loadDeliveries(ctx: ScreenContext, endpoint: Endpoint, box: HTMLElement, out: Notice): Promise<void> {
  const q = query({ project_id: ctx.project.id, endpoint_id: endpoint.id, limit: INLINE_DELIVERIES });
  const result = await api<{ deliveries: Delivery[] }>("GET", `/api/webhooks/deliveries${q}`);
  if (!result.ok) return out.error(result);
  const retry = (d: Delivery) => {
    if (d.state === "succeeded" || ctx.project.archived) return "—";
    const run = async () => {
      const r = await api<{ delivery: Delivery }>("POST", `/api/webhooks/deliveries/${d.id}/retry`, {
        project_id: ctx.project.id,
      });
      if (!r.ok) return out.error(r);
      await loadDeliveries(ctx, endpoint, box, out);
      toldRetry(out, r.data.delivery);
    };
    return h("button", { type: "button", onclick: run, dataset: { retry: d.id } }, "Retry");
  };
  const rows = result.data.deliveries;
  box.replaceChildren(
    table<Delivery>(
      `Last ${INLINE_DELIVERIES} deliveries`,
      [
        timeColumn("Created", (d) => d.created_at),
        { label: "Event", cell: (d) => d.event_type },
        { label: "State", cell: (d) => badge(d.state) },
        { label: "HTTP", cell: (d) => (d.status_code === null ? "—" : String(d.status_code)) },
        { label: "Attempts", cell: (d) => String(d.attempt_count) },
        timeColumn("Next retry", (d) => d.next_retry_at),
        timeColumn("Succeeded", (d) => d.succeeded_at),
        { label: "Error", cell: (d) => d.error_message ?? "—" },
        {
          label: "Idempotency key",
          cell: (d) => h("code", { title: d.idempotency_key }, d.idempotency_key.slice(0, 14)),
        },
        { label: "Retry", cell: retry },
      ],
      rows,
      "No deliveries yet.",
    ),
  );
  box.querySelectorAll("tbody tr").forEach((tr, i) => {
    const d = rows[i];
    if (d && tr instanceof HTMLElement) tr.dataset.delivery = d.id;
  });
}
