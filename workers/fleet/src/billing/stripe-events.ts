// Stripe events, after their signature has been checked: which project and payment each is about, and what it
// changes in the ledger. Events of other types, or about checkouts this registry did not create, are acknowledged
// and ignored. Object shapes are read loosely (Stripe adds fields); only what is used is validated.

import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { orm } from "../../../../shared/db/client";
import { billingAccounts, payments, projects } from "../../../../shared/db/schema";
import { extendCardPeriod, type ProcessorEvent, settlePayment, updateCardSubscription } from "./ledger";

const Id = z.string().min(1).max(255);
const Metadata = z.record(z.string(), z.string()).nullish();

export const StripeEvent = z.object({
  id: Id,
  type: z.string().max(100),
  created: z.number().int().nonnegative(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});
export type StripeEvent = z.infer<typeof StripeEvent>;

const CheckoutSession = z.object({
  id: Id,
  payment_status: z.string().optional(),
  customer: Id.nullish(),
  subscription: Id.nullish(),
});

const Invoice = z.object({
  id: Id,
  customer: Id.nullish(),
  billing_reason: z.string().nullish(),
  amount_paid: z.number().int().nonnegative(),
  currency: z.string().max(10),
  subscription: Id.nullish(),
  subscription_details: z.object({ metadata: Metadata }).nullish(),
  parent: z
    .object({ subscription_details: z.object({ subscription: Id.nullish(), metadata: Metadata }).nullish() })
    .nullish(),
  lines: z.object({ data: z.array(z.object({ period: z.object({ end: z.number().int() }) })) }),
});

const Subscription = z.object({
  id: Id,
  status: z.string(),
  cancel_at_period_end: z.boolean().optional(),
  current_period_end: z.number().int().nullish(),
  items: z.object({ data: z.array(z.object({ current_period_end: z.number().int().nullish() })) }).nullish(),
  metadata: Metadata,
});

/** Statuses after which a subscription never renews again. */
const ENDED = new Set(["canceled", "unpaid", "incomplete_expired"]);

export type Outcome = { applied: boolean; ignored?: string };

const ignored = (why: string): Outcome => ({ applied: false, ignored: why });

export async function applyStripeEvent(d1: D1Database, event: StripeEvent): Promise<Outcome> {
  const base: ProcessorEvent = { processor: "card", id: event.id, type: event.type, createdAt: event.created * 1000 };
  const object = event.data.object;
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = CheckoutSession.safeParse(object);
      if (!session.success) return ignored("unreadable checkout session");
      if (session.data.payment_status && !["paid", "no_payment_required"].includes(session.data.payment_status)) {
        return ignored("checkout not paid yet");
      }
      const payment = await orm(d1)
        .select({ projectId: payments.projectId })
        .from(payments)
        .where(and(eq(payments.processor, "card"), eq(payments.processorRef, session.data.id)))
        .get();
      if (!payment) return ignored("not a checkout of this registry");
      const applied = await settlePayment(d1, {
        event: base,
        projectId: payment.projectId,
        paymentRef: session.data.id,
        card: { customerId: session.data.customer ?? null, subscriptionId: session.data.subscription ?? null },
      });
      return { applied };
    }
    case "invoice.paid": {
      const invoice = Invoice.safeParse(object);
      if (!invoice.success) return ignored("unreadable invoice");
      const inv = invoice.data;
      const subscriptionId = inv.parent?.subscription_details?.subscription ?? inv.subscription;
      const metadata = inv.parent?.subscription_details?.metadata ?? inv.subscription_details?.metadata ?? {};
      const periodEnd = Math.max(0, ...inv.lines.data.map((line) => line.period.end)) * 1000;
      if (!subscriptionId || periodEnd === 0) return ignored("not a subscription invoice");
      const projectId = await projectOf(d1, metadata?.project_id, subscriptionId);
      if (!projectId) return ignored("no project for this subscription");
      const applied = await extendCardPeriod(d1, {
        event: base,
        projectId,
        customerId: inv.customer ?? null,
        subscriptionId,
        periodEnd,
        ...(inv.billing_reason !== "subscription_create" && {
          renewal: {
            invoiceId: inv.id,
            amount: inv.amount_paid,
            currency: inv.currency.toLowerCase(),
            tier: metadata?.tier ?? "pro",
          },
        }),
      });
      return { applied };
    }
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const subscription = Subscription.safeParse(object);
      if (!subscription.success) return ignored("unreadable subscription");
      const sub = subscription.data;
      const projectId = await projectOf(d1, sub.metadata?.project_id, sub.id);
      if (!projectId) return ignored("no project for this subscription");
      const end = sub.items?.data[0]?.current_period_end ?? sub.current_period_end ?? null;
      const applied = await updateCardSubscription(d1, {
        event: base,
        projectId,
        subscriptionId: sub.id,
        active: event.type === "customer.subscription.updated" && !ENDED.has(sub.status),
        cancelAtPeriodEnd: sub.cancel_at_period_end ?? false,
        periodEnd: end === null ? null : end * 1000,
      });
      return { applied };
    }
    default:
      return ignored(`event type ${event.type} is not used`);
  }
}

/** The project a subscription belongs to: the one it is recorded against, else its metadata's (if it exists). */
async function projectOf(d1: D1Database, fromMetadata: string | undefined, subscriptionId: string) {
  const recorded = await orm(d1)
    .select({ projectId: billingAccounts.projectId })
    .from(billingAccounts)
    .where(eq(billingAccounts.cardSubscriptionId, subscriptionId))
    .get();
  if (recorded) return recorded.projectId;
  if (!fromMetadata) return undefined;
  const project = await orm(d1).select({ id: projects.id }).from(projects).where(eq(projects.id, fromMetadata)).get();
  return project?.id;
}
