// Checkout (service-spec Billing, rule 12): a card subscription through a Stripe Checkout Session, or 30 days over
// lightning through a BTCPay invoice. Owners only, signed in; enterprise is never self-serve. The payment is pending
// until the processor's signed webhook says paid (billing-webhooks.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { btcpayConfig, createInvoice } from "../../../../shared/billing/btcpay";
import { CHECKOUT_TIERS, pricesFrom } from "../../../../shared/billing/plans";
import { createCheckoutSession, stripeConfig } from "../../../../shared/billing/stripe";
import { payments } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { Access } from "../access";
import { changeWithLog } from "../admin-log";
import { cardCustomerOf, ownerSession, returnUrl } from "../billing/buyer";
import type { FleetEnv } from "../env";
import { newId } from "../ids";
import { routeLimit } from "../limits";
import { okWith, ProjectId } from "../schemas";

export const checkoutRoutes = routeGroup<FleetEnv>();

const Checkout = z.strictObject({ project_id: ProjectId, tier: z.enum(CHECKOUT_TIERS) }).openapi("CheckoutRequest");
const CHECKOUT_ERRORS = [
  "invalid_body",
  "unauthenticated",
  "owner_required",
  "not_found",
  "tier_not_self_serve",
  "checkout_not_configured",
] as const;

async function recordCheckout(
  access: Access,
  payment: { id: string; processor: "card" | "lightning"; ref: string; tier: string; amount: number; currency: string },
) {
  const { db, project } = access;
  const now = Date.now();
  await changeWithLog(
    access,
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
    {
      eventType: "billing.checkout_created",
      targetId: payment.id,
      detail: { processor: payment.processor, tier: payment.tier, amount: payment.amount, currency: payment.currency },
    },
  );
}

checkoutRoutes.openapi(
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

checkoutRoutes.openapi(
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
