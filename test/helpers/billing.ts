// Billing test helpers: the loopback processors' admin calls (signed events, checkout completion) and delivery of
// processor webhooks to the fleet worker, as Stripe and BTCPay Server would send them.
import { env, SELF } from "cloudflare:test";
import { freshIp } from "./browser";
import { FLEET, type FleetClient } from "./fleet";

export interface SignedStripeEvent {
  type: string;
  body: string;
  signature: string;
}

export interface SignedBtcpayEvent {
  body: string;
  signature: string;
}

async function admin<T>(base: string | undefined, path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(`${base}${path}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The id at the end of a checkout URL (…/c/pay/<session>, …/i/<invoice>). */
export const lastSegment = (url: string) => new URL(url).pathname.split("/").pop() as string;

/** Stripe's events for a completed checkout: checkout.session.completed, then the first invoice.paid. */
export async function completeCardCheckout(checkoutUrl: string): Promise<SignedStripeEvent[]> {
  const { events } = await admin<{ events: SignedStripeEvent[] }>(
    env.STRIPE_API_BASE,
    `/__admin/complete/${lastSegment(checkoutUrl)}`,
  );
  return events;
}

/** A Stripe-signed event; `created` (event time) and `t` (signature time) in unix seconds. */
export function stripeEvent(type: string, object: unknown, times: { created?: number; t?: number } = {}) {
  return admin<SignedStripeEvent>(env.STRIPE_API_BASE, "/__admin/event", { type, object, ...times });
}

/** Any bytes, Stripe-signed: for payloads no real event would have. */
export function stripeSigned(body: string) {
  return admin<{ body: string; signature: string }>(env.STRIPE_API_BASE, "/__admin/sign", { body });
}

export function btcpayEvent(type: string, invoiceId: string, timestamp?: number) {
  return admin<SignedBtcpayEvent>(env.BTCPAY_URL, "/__admin/event", { type, invoiceId, timestamp });
}

/** The same BTCPay event redelivered: a new deliveryId, the original timestamp. */
export function btcpayRedelivery(event: SignedBtcpayEvent) {
  return admin<SignedBtcpayEvent>(env.BTCPAY_URL, "/__admin/redeliver", { body: event.body });
}

async function deliver(path: string, body: string, headers: Record<string, string>) {
  const res = await SELF.fetch(`${FLEET}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": freshIp(), ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean; reason?: string; applied?: boolean } };
}

export function postStripe(event: { body: string; signature?: string }) {
  return deliver(
    "/api/billing/webhooks/stripe",
    event.body,
    event.signature ? { "stripe-signature": event.signature } : {},
  );
}

export function postBtcpay(event: { body: string; signature?: string }) {
  return deliver("/api/billing/webhooks/btcpay", event.body, event.signature ? { "btcpay-sig": event.signature } : {});
}

export interface BillingView {
  plan: string;
  renews_at: string | null;
  expires_at: string | null;
  card_customer: boolean;
  payments: {
    id: string;
    processor: string;
    status: string;
    amount: number;
    currency: string;
    paid_at: string | null;
  }[];
}

export async function billingOf(client: FleetClient, projectId: string): Promise<BillingView> {
  const res = await client.call<{ billing: BillingView }>("GET", `/api/billing?project_id=${projectId}`);
  if (res.status !== 200) throw new Error(`billing: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.billing;
}

export async function planLog(client: FleetClient, projectId: string, eventType = "billing.plan_changed") {
  const res = await client.call<{ entries: { event_type: string; detail: Record<string, unknown> }[] }>(
    "GET",
    `/api/admin/log?project_id=${projectId}&event_type=${eventType}`,
  );
  return res.body.entries;
}
