// Registered envelopes with their status, one kind at a time, in registration order (the per-project list routes:
// /api/delegations, /api/subdelegations, /api/actions, /api/revocations, /api/pledge-outcomes,
// /api/pledge-abandonments). Pledges and their states have a view of their own (pledges.ts).
import { api, query } from "./api";
import { type Column, table, timeColumn } from "./forms";
import { notice } from "./notice";
import type { Page, ScreenContext } from "./types";
import { badge, h, moreButton, short } from "./ui";

interface Kind {
  key: string;
  label: string;
  path: string;
}

const KINDS: readonly Kind[] = [
  { key: "delegations", label: "Delegations", path: "/api/delegations" },
  { key: "subdelegations", label: "Sub-delegations", path: "/api/subdelegations" },
  { key: "actions", label: "Actions", path: "/api/actions" },
  { key: "revocations", label: "Revocations", path: "/api/revocations" },
  { key: "outcomes", label: "Pledge outcomes", path: "/api/pledge-outcomes" },
  { key: "abandonments", label: "Pledge abandonments", path: "/api/pledge-abandonments" },
];

/** The fields the kinds share; each kind has some of them. */
interface Envelope {
  id: string;
  status?: string;
  project_id?: string;
  principal_address?: string;
  agent_address?: string | null;
  signer_address?: string;
  swearer?: string;
  scopes?: string[];
  scope_exercised?: string;
  reason?: string;
  outcome?: string;
  delegation_id?: string;
  pledge_id?: string;
  issued_at?: string;
  expires_at?: string;
  signed_at?: string;
  registered_at: string;
  envelope: unknown;
}

const parties = (e: Envelope) =>
  e.principal_address
    ? `${e.principal_address} → ${e.agent_address ?? "?"}`
    : (e.agent_address ?? e.signer_address ?? e.swearer ?? "—");
const what = (e: Envelope) =>
  (e.scopes ?? []).join(", ") || e.scope_exercised || e.reason || e.outcome || e.delegation_id || e.pledge_id || "—";
const when = (e: Envelope) => (e.issued_at ? `${e.issued_at} → ${e.expires_at}` : (e.signed_at ?? e.expires_at ?? "—"));

const COLUMNS: readonly Column<Envelope>[] = [
  { label: "Id", cell: (e) => h("code", { title: e.id }, short(e.id)) },
  { label: "Status", cell: (e) => (e.status ? badge(e.status) : "—") },
  { label: "Parties", cell: (e) => h("code", { class: "wrap" }, parties(e)) },
  { label: "Scope, reason or outcome", cell: what },
  { label: "Validity or signed", cell: when },
  timeColumn("Registered", (e) => e.registered_at),
  {
    label: "Envelope",
    cell: (e) =>
      h("details", {}, h("summary", {}, "Show"), h("pre", { tabindex: "0" }, JSON.stringify(e.envelope, null, 2))),
  },
];

export async function envelopesScreen(ctx: ScreenContext) {
  const { container, project } = ctx;
  const body = h("div", { id: "envelope-list" });
  const buttons = KINDS.map((kind) =>
    h("button", { type: "button", dataset: { kind: kind.key }, onclick: () => open(kind) }, kind.label),
  );
  const open = (kind: Kind) => {
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.dataset.kind === kind.key));
    body.replaceChildren();
    return loadPage(ctx, kind, body);
  };
  container.replaceChildren(
    h("h3", {}, "Registered envelopes"),
    h(
      "p",
      { class: "hint" },
      "Pledges are listed with their states under ",
      h("a", { href: `#/p/${project.id}/pledges` }, "Pledges"),
      ".",
    ),
    h("div", { class: "kinds", role: "group", "aria-label": "Envelope kind" }, buttons),
    body,
  );
  await open(KINDS[0] as Kind);
}

async function loadPage(ctx: ScreenContext, kind: Kind, body: HTMLElement, cursor?: string): Promise<void> {
  const out = notice();
  const result = await api<Record<string, Envelope[]> & Page>(
    "GET",
    `${kind.path}${query({ project_id: ctx.project.id, cursor })}`,
  );
  if (!out.check(result) || !result.ok) return void body.append(out);
  body.append(table(kind.label, COLUMNS, result.data[kind.key] ?? []));
  const next = result.data.next_cursor;
  if (next) body.append(moreButton("More", () => loadPage(ctx, kind, body, next)));
}
