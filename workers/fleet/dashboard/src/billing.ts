// Billing: the project's plan and payments (GET /api/billing, any member), upgrades to Pro by card or Lightning
// (POST /api/checkout/card|lightning, owner; the browser goes to the processor's page) and the card processor's
// customer portal (POST /api/billing/portal with Accept: application/json). Unconfigured processors answer
// 503/502 reasons, which are shown as they come; a server without billing routes answers 404.
import { api } from "./api";
import { table, timeColumn } from "./forms";
import { notice } from "./notice";
import type { ScreenContext } from "./types";
import { badge, h, section, time } from "./ui";

/** What the page says when a processor sends the buyer back (?billing=…). */
const RETURNS: Record<string, string> = {
  paid: "Back from checkout: the plan changes once the processor confirms the payment.",
  cancelled: "Checkout cancelled: nothing was charged.",
  portal: "Back from the card billing portal.",
};

interface Payment {
  processor: string;
  tier: string;
  amount: number;
  currency: string;
  status: string;
  created_at: string;
  paid_at: string | null;
}

interface Billing {
  plan: string;
  renews_at: string | null;
  expires_at: string | null;
  card_customer: boolean;
  payments: Payment[];
}

export async function billingScreen(ctx: ScreenContext) {
  const { project, role, container } = ctx;
  const out = notice("billing-status");
  const back = notice("billing-return");
  const returned = ctx.billingReturn ? RETURNS[ctx.billingReturn] : undefined;
  if (returned) back.ok(returned);
  const result = await api<{ billing: Billing }>("GET", `/api/billing?project_id=${encodeURIComponent(project.id)}`);
  if (!result.ok) {
    const unavailable = result.status === 404;
    if (!unavailable) out.error(result);
    const why = h(
      "p",
      { id: "billing-unavailable" },
      "Billing is not available on this server yet. ",
      h("code", {}, result.reason),
    );
    container.replaceChildren(h("h3", {}, "Billing"), back, unavailable ? why : out);
    return;
  }
  const { billing } = result.data;
  const go = (path: string, body: unknown) => async () => {
    const r = await api<{ url: string }>("POST", path, body);
    if (out.check(r, "Opening the payment page…") && r.ok) location.assign(r.data.url);
  };
  const owner = role === "owner";
  const button = (id: string, label: string, path: string, body: unknown) =>
    h("button", { type: "button", id, disabled: !owner || project.archived, onclick: go(path, body) }, label);
  const pro = { project_id: project.id, tier: "pro" };
  const upgrades =
    billing.plan === "community"
      ? [
          button("checkout-card", "Upgrade to Pro (card)", "/api/checkout/card", pro),
          " ",
          button("checkout-lightning", "Upgrade to Pro (Lightning)", "/api/checkout/lightning", pro),
          " ",
        ]
      : [];
  const details: [string, string | Node, string?][] = [
    ["Plan", badge(billing.plan), "billing-plan"],
    ["Renews", time(billing.renews_at)],
    ["Expires", time(billing.expires_at)],
    ["Card billing account", billing.card_customer ? "yes" : "no"],
  ];
  container.replaceChildren(
    back,
    section(
      "Plan",
      h(
        "dl",
        { class: "details" },
        details.map(([term, value, id]) => [h("dt", {}, term), h("dd", { id }, value)]),
      ),
      owner ? [] : h("p", { class: "hint" }, "Only an owner can change the plan."),
      h(
        "p",
        { class: "actions" },
        upgrades,
        button("billing-portal", "Manage card billing", "/api/billing/portal", { project_id: project.id }),
      ),
      out,
    ),
    section(
      "Payments",
      table<Payment>(
        "Payments, newest first",
        [
          timeColumn("When", (p) => p.created_at),
          { label: "Processor", cell: (p) => p.processor },
          { label: "Tier", cell: (p) => p.tier },
          { label: "Amount", cell: (p) => `${p.amount} ${p.currency}` },
          { label: "Status", cell: (p) => badge(p.status) },
          timeColumn("Paid", (p) => p.paid_at),
        ],
        billing.payments,
        "No payments yet.",
      ),
    ),
  );
}
