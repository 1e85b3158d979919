// BTCPay Server webhook payloads, after their signature has been checked: a settled invoice pays its checkout and
// moves the plan; an expired or invalid one marks the payment expired. Invoices this registry did not create, and
// other event types, are acknowledged and ignored. Redeliveries carry a new deliveryId: settlement is still once,
// because the payment can only become paid once.
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { orm } from "../../../../shared/db/client";
import { payments } from "../../../../shared/db/schema";
import { expirePayment, type ProcessorEvent, settlePayment } from "./ledger";
import type { Outcome } from "./stripe-events";

export const BtcpayEvent = z.object({
  deliveryId: z.string().min(1).max(255),
  type: z.string().max(100),
  timestamp: z.number().int().nonnegative(),
  storeId: z.string().max(255).optional(),
  invoiceId: z.string().min(1).max(255).optional(),
});
export type BtcpayEvent = z.infer<typeof BtcpayEvent>;

export async function applyBtcpayEvent(d1: D1Database, event: BtcpayEvent, storeId: string): Promise<Outcome> {
  if (event.storeId !== undefined && event.storeId !== storeId) return { applied: false, ignored: "another store" };
  if (!event.invoiceId) return { applied: false, ignored: "no invoice" };
  const payment = await orm(d1)
    .select({ projectId: payments.projectId })
    .from(payments)
    .where(and(eq(payments.processor, "lightning"), eq(payments.processorRef, event.invoiceId)))
    .get();
  if (!payment) return { applied: false, ignored: "not an invoice of this registry" };
  const base: ProcessorEvent = {
    processor: "lightning",
    id: event.deliveryId,
    type: event.type,
    createdAt: event.timestamp * 1000,
  };
  switch (event.type) {
    case "InvoiceSettled": {
      const applied = await settlePayment(d1, {
        event: base,
        projectId: payment.projectId,
        paymentRef: event.invoiceId,
      });
      return { applied };
    }
    case "InvoiceExpired":
    case "InvoiceInvalid":
      await expirePayment(d1, base, event.invoiceId);
      return { applied: false };
    default:
      return { applied: false, ignored: `event type ${event.type} is not used` };
  }
}
