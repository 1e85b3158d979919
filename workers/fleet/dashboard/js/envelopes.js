// Registered envelopes with their status, one kind at a time, in registration order (the per-project list routes:
// /api/delegations, /api/subdelegations, /api/actions, /api/revocations, /api/pledge-outcomes,
// /api/pledge-abandonments). Pledges have no per-project list: they are read by swearer (/api/pledges?swearer=)
// and filtered to this project.
import { api, query } from "./api.js";
import { badge, field, h, moreButton, notice, short, table, time } from "./ui.js";

const KINDS = [
  ["delegations", "Delegations", "/api/delegations"],
  ["subdelegations", "Sub-delegations", "/api/subdelegations"],
  ["actions", "Actions", "/api/actions"],
  ["revocations", "Revocations", "/api/revocations"],
  ["pledges", "Pledges", "/api/pledges"],
  ["outcomes", "Pledge outcomes", "/api/pledge-outcomes"],
  ["abandonments", "Pledge abandonments", "/api/pledge-abandonments"],
];

const parties = (e) =>
  e.principal_address
    ? `${e.principal_address} → ${e.agent_address ?? "?"}`
    : (e.agent_address ?? e.signer_address ?? e.swearer ?? "—");
const what = (e) =>
  (e.scopes ?? []).join(", ") || e.scope_exercised || e.reason || e.outcome || e.delegation_id || e.pledge_id || "—";
const when = (e) => (e.issued_at ? `${e.issued_at} → ${e.expires_at}` : (e.signed_at ?? e.expires_at ?? "—"));

const COLUMNS = [
  { label: "Id", cell: (e) => h("code", { title: e.id }, short(e.id)) },
  { label: "Status", cell: (e) => (e.status ? badge(e.status) : "—") },
  { label: "Parties", cell: (e) => h("code", { class: "wrap" }, parties(e)) },
  { label: "Scope, reason or outcome", cell: what },
  { label: "Validity or signed", cell: when },
  { label: "Registered", cell: (e) => time(e.registered_at) },
  {
    label: "Envelope",
    cell: (e) => h("details", {}, h("summary", {}, "Show"), h("pre", {}, JSON.stringify(e.envelope, null, 2))),
  },
];

export async function envelopesScreen(ctx) {
  const { container, me } = ctx;
  const kinds = h("div", { class: "kinds", role: "group", "aria-label": "Envelope kind" });
  const body = h("div", { id: "envelope-list" });
  const open = (kind) => {
    for (const b of kinds.children) b.setAttribute("aria-pressed", String(b.dataset.kind === kind[0]));
    body.replaceChildren();
    if (kind[0] === "pledges") return pledges(ctx, body, me.primary_btc ?? "");
    return loadPage(ctx, kind, body);
  };
  kinds.append(
    ...KINDS.map((kind) =>
      h("button", { type: "button", dataset: { kind: kind[0] }, onclick: () => open(kind) }, kind[1]),
    ),
  );
  container.replaceChildren(h("h3", {}, "Registered envelopes"), kinds, body);
  await open(KINDS[0]);
}

async function loadPage(ctx, [key, label, path], body, cursor) {
  const out = notice();
  const result = await api("GET", `${path}${query({ project_id: ctx.project.id, cursor })}`);
  if (!out.check(result)) return body.append(out);
  body.append(table(label, COLUMNS, result.data[key]));
  const next = result.data.next_cursor;
  if (next) {
    body.append(moreButton("More", () => loadPage(ctx, [key, label, path], body, next)));
  }
}

async function pledges(ctx, body, swearer) {
  const out = notice();
  const input = field("Swearer address", { name: "swearer", value: swearer, required: true, autocomplete: "off" });
  const results = h("div");
  const load = async (event) => {
    event?.preventDefault();
    const result = await api("GET", `/api/pledges${query({ swearer: input.input.value.trim() })}`);
    if (!out.check(result)) return results.replaceChildren();
    const mine = result.data.pledges.filter((p) => p.project_id === ctx.project.id);
    results.replaceChildren(table("Pledges of this swearer in this project", COLUMNS, mine));
  };
  body.append(
    h("p", { class: "hint" }, "Pledges are listed by the address that swore them."),
    h("form", { onsubmit: load }, input, h("button", { type: "submit" }, "Show pledges"), out),
    results,
  );
  if (swearer) await load();
}
