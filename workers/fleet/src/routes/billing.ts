// Billing (service-spec Billing, rule 12): the plan, its renewal or expiry and past payments (any member); card
// checkout (Stripe Checkout Session), lightning checkout (BTCPay invoice) and the card customer portal (owners,
// signed in: an API token cannot spend money or reach the payment methods). Enterprise is never self-serve.
import { createRoute, z } from "@hono/zod-openapi";
import { desc, eq } from "drizzle-orm";
import type { Context } from "hono";
import { btcpayConfig, createInvoice } from "../../../../shared/billing/btcpay";
import { CHECKOUT_TIERS, planInForce, pricesFrom, TIERS } from "../../../../shared/billing/plans";
import { createCheckoutSession, createPortalSession, stripeConfig } from "../../../../shared/billing/stripe";
import { billingAccounts, payments } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { type Access, atLeast, projectAccess } from "../access";
import { logEntry } from "../admin-log";
import type { FleetEnv } from "../env";
import { newId } from "../ids";
import { routeLimit } from "../limits";
import { okWith, ProjectId } from "../schemas";

export const billingRoutes = routeGroup<FleetEnv>();

/** Payments shown by GET /api/billing, newest first. */
export const PAYMENTS_SHOWN = 50;

const PaymentSchema = z
  .object({
    id: z.string(),
    processor: z.enum(["card", "lightning"]),
    tier: z.string(),
    amount: z.number().int(),
    currency: z.string(),
    status: z.enum(["pending", "paid", "expired"]),
    created_at: z.string(),
    paid_at: z.string().nullable(),
  })
  .openapi("Payment");

const BillingSchema = z
  .object({
    project_id: z.string(),
    plan: z.enum(TIERS),
    renews_at: z.string().nullable(),
    expires_at: z.string().nullable(),
    card_customer: z.boolean(),
    payments: z.array(PaymentSchema),
  })
  .openapi("Billing");

const Checkout = z.strictObject({ project_id: ProjectId, tier: z.enum(CHECKOUT_TIERS) }).openapi("CheckoutRequest");
const PortalRequest = z.strictObject({ project_id: ProjectId }).openapi("PortalRequest");
const CHECKOUT_ERRORS = [
  "invalid_body",
  "unauthenticated",
  "owner_required",
  "not_found",
  "tier_not_self_serve",
  "checkout_not_configured",
] as const;

/** Buying and the portal: an owner, signed in (a bearer token acts as owner, but does not spend money). */
async function ownerSession(c: Context<FleetEnv>, projectId: string): Promise<Access> {
  const access = await projectAccess(c, projectId, { write: true });
  atLeast(access, "owner");
  if (access.caller.kind !== "session") {
    throw new AppError("owner_required", { detail: "billing needs a signed-in owner; API tokens cannot buy" });
  }
  return access;
}

/** The project's card-processor customer, once a card checkout has completed. */
async function cardCustomerOf(access: Access): Promise<string | null> {
  const row = await access.db
    .select({ customer: billingAccounts.cardCustomerId })
    .from(billingAccounts)
    .where(eq(billingAccounts.projectId, access.project.id))
    .get();
  return row?.customer ?? null;
}

/** Where the processor sends the buyer back: the dashboard's billing view (needs FLEET_ORIGIN). */
function returnUrl(c: Context<FleetEnv>, projectId: string, outcome: string): string {
  const origin = c.env.FLEET_ORIGIN;
  if (!origin) throw new AppError("checkout_not_configured", { detail: "FLEET_ORIGIN is not set" });
  return `${origin.replace(/\/+$/, "")}/dashboard/?project=${projectId}&billing=${outcome}`;
}

billingRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/billing",
    summary: "A project's plan, when it renews or expires, and its payments",
    middleware: [routeLimit("billing")],
    request: { query: z.strictObject({ project_id: ProjectId }) },
    responses: {
      200: json(okWith({ billing: BillingSchema }), "The plan in force"),
      ...errorResponses("invalid_query", "unauthenticated", "not_found"),
    },
  }),
  async (c) => {
    const { project_id } = c.req.valid("query");
    const { db } = await projectAccess(c, project_id);
    const [account, rows] = await Promise.all([
      db.select().from(billingAccounts).where(eq(billingAccounts.projectId, project_id)).get(),
      db
        .select()
        .from(payments)
        .where(eq(payments.projectId, project_id))
        .orderBy(desc(payments.createdAt), desc(payments.id))
        .limit(PAYMENTS_SHOWN),
    ]);
    const plan = planInForce(account, Date.now());
    const billing = {
      project_id,
      plan: plan.plan,
      renews_at: plan.renews_at === null ? null : isoMs(plan.renews_at),
      expires_at: plan.expires_at === null ? null : isoMs(plan.expires_at),
      card_customer: Boolean(account?.cardCustomerId),
      payments: rows.map((p) => ({
        id: p.id,
        processor: p.processor as "card" | "lightning",
        tier: p.tier,
        amount: p.amount,
        currency: p.currency,
        status: p.status as "pending" | "paid" | "expired",
        created_at: isoMs(p.createdAt),
        paid_at: p.paidAt === null ? null : isoMs(p.paidAt),
      })),
    };
    return c.json({ ok: true as const, billing }, 200);
  },
);

async function recordCheckout(
  access: Access,
  payment: { id: string; processor: "card" | "lightning"; ref: string; tier: string; amount: number; currency: string },
) {
  const { db, project } = access;
  const now = Date.now();
  await db.batch([
    db.insert(payments).values({
      id: payment.id,
      projectId: project.id,
      processor: payment.processor,
      processorRef: payment.ref,
      tier: payment.tier,
      amount: payment.amount,
      currency: payment.currency,
      status: "pending",
      createdBy: access.actor.id,
      createdAt: now,
      paidAt: null,
      applyId: null,
    }),
    logEntry(db, {
      projectId: project.id,
      actor: access.actor,
      eventType: "billing.checkout_created",
      targetId: payment.id,
      detail: { processor: payment.processor, tier: payment.tier, amount: payment.amount, currency: payment.currency },
    }),
  ]);
}

billingRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/checkout/card",
    summary: "Start a card checkout (a monthly subscription); answers the processor's hosted checkout URL",
    middleware: [routeLimit("checkout-card"), jsonBody],
    request: { body: jsonRequest(Checkout) },
    responses: {
      200: json(okWith({ url: z.string(), payment_id: z.string() }), "Go to url to pay"),
      ...errorResponses(
        ...CHECKOUT_ERRORS,
        "card_processor_not_configured",
        "card_processor_error",
        "card_processor_no_url",
      ),
    },
  }),
  async (c) => {
    const { project_id, tier } = c.req.valid("json");
    const access = await ownerSession(c, project_id);
    if (tier === "enterprise") throw new AppError("tier_not_self_serve");
    const config = stripeConfig(c.env);
    const successUrl = returnUrl(c, project_id, "paid");
    const customerId = await cardCustomerOf(access);
    const paymentId = newId("pay");
    const amount = pricesFrom(c.env).proUsdCents;
    const session = await createCheckoutSession(config, {
      paymentId,
      projectId: project_id,
      tier,
      productName: `Pro plan — ${access.project.name}`,
      unitAmountCents: amount,
      customerId,
      successUrl,
      cancelUrl: returnUrl(c, project_id, "cancelled"),
    });
    if (!session.id) throw new AppError("card_processor_error", { detail: "the checkout session has no id" });
    await recordCheckout(access, { id: paymentId, processor: "card", ref: session.id, tier, amount, currency: "usd" });
    return c.json({ ok: true as const, url: session.url, payment_id: paymentId }, 200);
  },
);

billingRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/checkout/lightning",
    summary: "Start a lightning checkout (30 days, priced in sats); answers the invoice's checkout link",
    middleware: [routeLimit("checkout-lightning"), jsonBody],
    request: { body: jsonRequest(Checkout) },
    responses: {
      200: json(
        okWith({ url: z.string(), payment_id: z.string(), invoice_id: z.string(), amount_sats: z.number().int() }),
        "Go to url to pay",
      ),
      ...errorResponses(
        ...CHECKOUT_ERRORS,
        "lightning_processor_not_configured",
        "lightning_processor_error",
        "lightning_processor_fetch_error",
      ),
    },
  }),
  async (c) => {
    const { project_id, tier } = c.req.valid("json");
    const access = await ownerSession(c, project_id);
    if (tier === "enterprise") throw new AppError("tier_not_self_serve");
    const config = btcpayConfig(c.env);
    const redirectUrl = returnUrl(c, project_id, "paid");
    const paymentId = newId("pay");
    const amountSats = pricesFrom(c.env).proSats;
    const invoice = await createInvoice(config, { paymentId, projectId: project_id, tier, amountSats, redirectUrl });
    await recordCheckout(access, {
      id: paymentId,
      processor: "lightning",
      ref: invoice.id,
      tier,
      amount: amountSats,
      currency: "sats",
    });
    return c.json(
      {
        ok: true as const,
        url: invoice.checkoutLink,
        payment_id: paymentId,
        invoice_id: invoice.id,
        amount_sats: amountSats,
      },
      200,
    );
  },
);

billingRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/billing/portal",
    summary: "Open the card processor's customer portal: 303 to it, or {ok, url} when the request accepts only JSON",
    middleware: [routeLimit("billing-portal"), jsonBody],
    request: { body: jsonRequest(PortalRequest) },
    responses: {
      200: json(okWith({ url: z.string() }), "The portal URL (Accept: application/json)"),
      303: { description: "Redirect to the portal" },
      ...errorResponses(
        "invalid_body",
        "unauthenticated",
        "owner_required",
        "not_found",
        "card_processor_not_configured",
        "no_card_processor_customer",
        "checkout_not_configured",
        "card_processor_error",
        "card_processor_no_url",
      ),
    },
  }),
  async (c) => {
    const { project_id } = c.req.valid("json");
    const access = await ownerSession(c, project_id);
    const config = stripeConfig(c.env);
    const customerId = await cardCustomerOf(access);
    if (!customerId) throw new AppError("no_card_processor_customer");
    const portal = await createPortalSession(config, {
      customerId,
      returnUrl: returnUrl(c, project_id, "portal"),
    });
    if (wantsJson(c.req.header("accept"))) return c.json({ ok: true as const, url: portal.url }, 200);
    return c.redirect(portal.url, 303);
  },
);

/** A fetch() from the dashboard cannot read a cross-origin redirect, so it asks for the URL as JSON. */
function wantsJson(accept: string | undefined): boolean {
  return accept !== undefined && /application\/json/i.test(accept) && !/text\/html/i.test(accept);
}
