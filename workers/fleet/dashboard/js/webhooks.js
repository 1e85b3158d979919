// Webhook endpoints: register one (its signing secret is shown once), pause, resume, send a test ping, delete; each
// endpoint lists its last 25 deliveries inline with a retry button (rule 11: endpoint_paused, already_succeeded).
// Routes: /api/webhook-events, /api/webhooks/endpoints[/{id}[/test]], /api/webhooks/deliveries[/{id}/retry].
import { api, query } from "./api.js";
import { badge, field, h, notice, secretOnce, section, table, time } from "./ui.js";

/** The spec's dashboard log: the last 25 deliveries of each endpoint, inline. */
const INLINE_DELIVERIES = 25;

export async function webhooksScreen(ctx) {
  const { project, container } = ctx;
  const catalogue = await api("GET", "/api/webhook-events");
  const types = catalogue.ok ? catalogue.data.events.map((e) => e.type).filter((t) => t !== "test.ping") : [];
  const boxes = types.map((type) =>
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "event", value: type, checked: true }), type),
  );
  const createOut = notice();
  const shown = h("div", { id: "endpoint-secret" });
  const url = field("Endpoint URL (https)", { name: "url", type: "url", required: true, id: "endpoint-url", size: 50 });
  const list = h("div", { id: "endpoint-list" });
  const create = async (event) => {
    event.preventDefault();
    const eventTypes = boxes
      .map((b) => b.querySelector("input"))
      .filter((i) => i.checked)
      .map((i) => i.value);
    const result = await api("POST", "/api/webhooks/endpoints", {
      project_id: project.id,
      url: url.input.value.trim(),
      event_types: eventTypes.length ? eventTypes : ["*"],
    });
    const registered = () => {
      url.input.value = "";
      shown.replaceChildren(secretOnce(`Signing secret of ${result.data.endpoint.url}`, result.data.secret));
      return loadEndpoints(ctx, list, listOut);
    };
    await createOut.settle(result, registered, (r) => `Registered ${r.data.endpoint.url}.`);
  };
  // Pause, resume and delete redraw the list, so their outcome is told above it.
  const listOut = notice();
  listOut.id = "endpoint-status";
  container.replaceChildren(
    section(
      "Register an endpoint",
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
    h("h3", {}, "Endpoints"),
    listOut,
    list,
  );
  await loadEndpoints(ctx, list, listOut);
}

async function loadEndpoints(ctx, list, listOut) {
  const result = await api("GET", `/api/webhooks/endpoints${query({ project_id: ctx.project.id })}`);
  if (!result.ok) return listOut.error(result);
  const endpoints = result.data.endpoints;
  list.replaceChildren(
    ...(endpoints.length ? endpoints.map((e) => endpointCard(ctx, e, list, listOut)) : [h("p", {}, "None yet.")]),
  );
}

function endpointCard(ctx, endpoint, list, listOut) {
  const out = notice();
  const deliveries = h("div", { class: "deliveries" });
  const refresh = () => loadDeliveries(ctx, endpoint, deliveries, out);
  const call = async (method, path, body, done) => {
    const result = await api(method, path, body);
    if (method === "PATCH" || method === "DELETE")
      await listOut.settle(result, () => loadEndpoints(ctx, list, listOut), done);
    else await out.settle(result, refresh, done);
  };
  const base = `/api/webhooks/endpoints/${endpoint.id}`;
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
      endpoint.active
        ? h("button", { type: "button", onclick: () => call("PATCH", base, { active: false }, "Paused.") }, "Pause")
        : h("button", { type: "button", onclick: () => call("PATCH", base, { active: true }, "Resumed.") }, "Resume"),
      " ",
      h(
        "button",
        { type: "button", onclick: () => call("POST", `${base}/test`, undefined, "Test ping queued.") },
        "Send test ping",
      ),
      " ",
      h("button", { type: "button", onclick: refresh }, "Refresh deliveries"),
      " ",
      h(
        "button",
        {
          type: "button",
          class: "danger",
          onclick: () => confirm(`Delete the endpoint ${endpoint.url}?`) && call("DELETE", base, undefined, "Deleted."),
        },
        "Delete",
      ),
    ),
    out,
    deliveries,
  );
  card.classList.add("endpoint");
  card.dataset.endpoint = endpoint.id;
  refresh();
  return card;
}

async function loadDeliveries(ctx, endpoint, box, out) {
  const q = query({ project_id: ctx.project.id, endpoint_id: endpoint.id, limit: INLINE_DELIVERIES });
  const result = await api("GET", `/api/webhooks/deliveries${q}`);
  if (!result.ok) return out.error(result);
  const retry = (d) => {
    if (d.state === "succeeded") return "—";
    const run = async () => {
      const r = await api("POST", `/api/webhooks/deliveries/${d.id}/retry`, { project_id: ctx.project.id });
      const told = ({ data: { delivery: d } }) =>
        `Retried: attempt ${d.attempt_count}, ${d.state}${d.error_message ? ` (${d.error_message})` : ""}.`;
      await out.settle(r, () => loadDeliveries(ctx, endpoint, box, out), told);
    };
    return h("button", { type: "button", onclick: run, dataset: { retry: d.id } }, "Retry");
  };
  box.replaceChildren(
    table(
      `Last ${INLINE_DELIVERIES} deliveries`,
      [
        { label: "Created", cell: (d) => time(d.created_at) },
        { label: "Event", cell: (d) => d.event_type },
        { label: "State", cell: (d) => badge(d.state) },
        { label: "HTTP", cell: (d) => (d.status_code === null ? "—" : String(d.status_code)) },
        { label: "Attempts", cell: (d) => String(d.attempt_count) },
        { label: "Next retry", cell: (d) => time(d.next_retry_at) },
        { label: "Succeeded", cell: (d) => time(d.succeeded_at) },
        { label: "Error", cell: (d) => d.error_message ?? "—" },
        {
          label: "Idempotency key",
          cell: (d) => h("code", { title: d.idempotency_key }, d.idempotency_key.slice(0, 14)),
        },
        { label: "Retry", cell: retry },
      ],
      result.data.deliveries,
      "No deliveries yet.",
    ),
  );
  box
    .querySelector("tbody")
    ?.querySelectorAll("tr")
    .forEach((tr, i) => {
      const d = result.data.deliveries[i];
      if (d) tr.dataset.delivery = d.id;
    });
}
