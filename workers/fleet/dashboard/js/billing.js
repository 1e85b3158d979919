// Billing: the project's plan and payments (GET /api/billing, any member), upgrades to Pro by card or Lightning
// (POST /api/checkout/card|lightning, owner; the browser goes to the processor's page) and the card processor's
// customer portal (POST /api/billing/portal with Accept: application/json). Unconfigured processors answer
// 503/502 reasons, which are shown as they come; a server without billing routes answers 404.
import { api } from "./api.js";
import { badge, h, notice, section, table, time } from "./ui.js";

/** What the page says when a processor sends the buyer back (?billing=…). */
const RETURNS = {
  paid: "Back from checkout: the plan changes once the processor confirms the payment.",
  cancelled: "Checkout cancelled: nothing was charged.",
  portal: "Back from the card billing portal.",
};

export async function billingScreen(ctx) {
  const { project, role, container } = ctx;
  const out = notice();
  const back = notice();
  back.id = "billing-return";
  if (RETURNS[ctx.billingReturn]) back.ok(RETURNS[ctx.billingReturn]);
  const result = await api("GET", `/api/billing?project_id=${encodeURIComponent(project.id)}`);
  if (!result.ok) {
    const unavailable = result.status === 404;
    if (!unavailable) out.error(result);
    container.replaceChildren(
      h("h3", {}, "Billing"),
      back,
      unavailable
        ? h(
            "p",
            { id: "billing-unavailable" },
            "Billing is not available on this server yet. ",
            h("code", {}, result.reason),
          )
        : out,
    );
    return;
  }
  const billing = result.data.billing;
  out.id = "billing-status";
  const go = (path, body) => async () => {
    const r = await api("POST", path, body);
    if (out.check(r, "Opening the payment page…")) location.assign(r.data.url);
  };
  const owner = role === "owner";
  const actions = h(
    "p",
    { class: "actions" },
    billing.plan === "community"
      ? [
          h(
            "button",
            {
              type: "button",
              id: "checkout-card",
              disabled: !owner,
              onclick: go("/api/checkout/card", { project_id: project.id, tier: "pro" }),
            },
            "Upgrade to Pro (card)",
          ),
          " ",
          h(
            "button",
            {
              type: "button",
              id: "checkout-lightning",
              disabled: !owner,
              onclick: go("/api/checkout/lightning", { project_id: project.id, tier: "pro" }),
            },
            "Upgrade to Pro (Lightning)",
          ),
          " ",
        ]
      : null,
    h(
      "button",
      {
        type: "button",
        id: "billing-portal",
        disabled: !owner,
        onclick: go("/api/billing/portal", { project_id: project.id }),
      },
      "Manage card billing",
    ),
  );
  container.replaceChildren(
    back,
    section(
      "Plan",
      h(
        "dl",
        { class: "details" },
        h("dt", {}, "Plan"),
        h("dd", { id: "billing-plan" }, badge(billing.plan)),
        h("dt", {}, "Renews"),
        h("dd", {}, time(billing.renews_at)),
        h("dt", {}, "Expires"),
        h("dd", {}, time(billing.expires_at)),
        h("dt", {}, "Card billing account"),
        h("dd", {}, billing.card_customer ? "yes" : "no"),
      ),
      owner ? null : h("p", { class: "hint" }, "Only an owner can change the plan."),
      actions,
      out,
    ),
    section(
      "Payments",
      table(
        "Payments, newest first",
        [
          { label: "When", cell: (p) => time(p.created_at) },
          { label: "Processor", cell: (p) => p.processor },
          { label: "Tier", cell: (p) => p.tier },
          { label: "Amount", cell: (p) => `${p.amount} ${p.currency}` },
          { label: "Status", cell: (p) => badge(p.status) },
          { label: "Paid", cell: (p) => time(p.paid_at) },
        ],
        billing.payments,
        "No payments yet.",
      ),
    ),
  );
}
