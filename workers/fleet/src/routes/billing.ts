// Billing (service-spec Billing, rule 12): the plan, its renewal or expiry and past payments (any member), and the
// card customer portal (owners, signed in: an API token cannot reach the payment methods). Checkout: checkout.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { desc, eq } from "drizzle-orm";
import { planInForce, TIERS } from "../../../../shared/billing/plans";
import { createPortalSession, stripeConfig } from "../../../../shared/billing/stripe";
import { billingAccounts, payments } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { projectAccess } from "../access";
import { cardCustomerOf, ownerSession, returnUrl } from "../billing/buyer";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { okWith, ProjectId } from "../schemas";

export const billingRoutes = routeGroup<FleetEnv>();
const PortalRequest = z.strictObject({ project_id: ProjectId }).openapi("PortalRequest");

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
