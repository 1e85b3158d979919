// Processor webhooks change the plan (service-spec Billing; issue: "exactly once even if delivered twice or out of
// order"; "forged, stale or unsigned webhooks are refused"): Stripe events signed by the loopback Stripe server,
// BTCPay Server events signed by the loopback BTCPay server, delivered to the fleet worker as the processors would.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/fleet/src/app";
import { PROCESSOR_EVENT_RETENTION_MS } from "../../workers/fleet/src/billing/ledger";
import { reconcile } from "../../workers/fleet/src/cron";
import type { FleetBindings } from "../../workers/fleet/src/env";
import {
  billingOf,
  btcpayEvent,
  btcpayRedelivery,
  completeCardCheckout,
  planLog,
  postBtcpay,
  postStripe,
  type SignedStripeEvent,
  stripeEvent,
  stripeSigned,
} from "../helpers/billing";
import { FLEET, ownerWithProject } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";

const DAY_MS = 86_400_000;
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function cardCheckout() {
  const { owner, projectId } = await ownerWithProject();
  const res = await owner.call<{ url: string; payment_id: string }>("POST", "/api/checkout/card", {
    project_id: projectId,
    tier: "pro",
  });
  const [completed, invoicePaid] = (await completeCardCheckout(res.body.url)) as [SignedStripeEvent, SignedStripeEvent];
  const session = JSON.parse(completed.body).data.object as { id: string; customer: string; subscription: string };
  const invoice = JSON.parse(invoicePaid.body).data.object as { lines: { data: { period: { end: number } }[] } };
  const periodEnd = new Date((invoice.lines.data[0]?.period.end ?? 0) * 1000).toISOString();
  return { owner, projectId, paymentId: res.body.payment_id, completed, invoicePaid, session, periodEnd };
}

async function lightningCheckout() {
  const { owner, projectId } = await ownerWithProject();
  const res = await owner.call<{ invoice_id: string; payment_id: string }>("POST", "/api/checkout/lightning", {
    project_id: projectId,
    tier: "pro",
  });
  return { owner, projectId, invoiceId: res.body.invoice_id, paymentId: res.body.payment_id };
}

describe("card payments (Stripe)", () => {
  it("a completed checkout makes the plan pro, renewing at the invoice's period end, the payment paid", async () => {
    const { owner, projectId, paymentId, completed, invoicePaid, periodEnd } = await cardCheckout();
    const first = await postStripe(completed);
    expect(first).toEqual({ status: 200, body: { ok: true, applied: true } });
    expect((await postStripe(invoicePaid)).status).toBe(200);
    const billing = await billingOf(owner, projectId);
    expect(billing).toMatchObject({ plan: "pro", renews_at: periodEnd, expires_at: null, card_customer: true });
    expect(billing.payments).toMatchObject([{ id: paymentId, status: "paid", processor: "card" }]);
    expect(billing.payments[0]?.paid_at).not.toBeNull();
    const log = await planLog(owner, projectId);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ actor: "card_processor", detail: { processor: "card", cause: "payment" } });
  });

  it("changes the plan exactly once when events are redelivered and arrive out of order", async () => {
    const { owner, projectId, completed, invoicePaid, periodEnd } = await cardCheckout();
    for (const event of [invoicePaid, completed, invoicePaid, completed, completed]) {
      expect((await postStripe(event)).status).toBe(200);
    }
    const billing = await billingOf(owner, projectId);
    expect(billing).toMatchObject({ plan: "pro", renews_at: periodEnd });
    expect(billing.payments.map((p) => p.status)).toEqual(["paid"]);
    expect(await planLog(owner, projectId)).toHaveLength(1);
    const redelivered = await postStripe(completed);
    expect(redelivered.body.applied).toBe(false);
  });

  it("refuses unsigned, forged and stale events (401) and changes nothing", async () => {
    const { owner, projectId, completed } = await cardCheckout();
    const t = nowSeconds();
    const tampered = completed.body.replace('"payment_status":"paid"', '"payment_status":"paid" ');
    const cases: [{ body: string; signature?: string }, string][] = [
      [{ body: completed.body }, "missing_signature"],
      [{ body: tampered, signature: completed.signature }, "invalid_signature"],
      [{ body: completed.body, signature: `t=${t},v1=${"0".repeat(64)}` }, "invalid_signature"],
      [{ body: completed.body, signature: "v1=abc" }, "invalid_signature"],
    ];
    for (const [event, reason] of cases) {
      const res = await postStripe(event);
      expect(res.status, reason).toBe(401);
      expect(res.body.reason).toBe(reason);
    }
    // Signed with the right secret, but 10 minutes ago (tolerance 300 s) or 10 minutes ahead.
    for (const shift of [-600, 600]) {
      const stale = await stripeEvent("checkout.session.completed", JSON.parse(completed.body).data.object, {
        t: nowSeconds() + shift,
      });
      const res = await postStripe(stale);
      expect(res.status).toBe(401);
      expect(res.body.reason).toBe("webhook_timestamp_stale");
    }
    // Signed with another endpoint's secret.
    const otherSecret = await app.request(
      `${FLEET}/api/billing/webhooks/stripe`,
      { method: "POST", headers: { "stripe-signature": completed.signature }, body: completed.body },
      { ...(env as unknown as FleetBindings), STRIPE_WEBHOOK_SECRET: "whsec_another" },
    );
    expect(((await otherSecret.json()) as { reason: string }).reason).toBe("invalid_signature");
    const billing = await billingOf(owner, projectId);
    expect(billing.plan).toBe("community");
    expect(billing.payments.map((p) => p.status)).toEqual(["pending"]);
    expect(await planLog(owner, projectId)).toHaveLength(0);
  });

  it("records a renewal once, extends the period, and a later-created cancellation wins over an older event", async () => {
    const { owner, projectId, completed, invoicePaid, session } = await cardCheckout();
    for (const event of [completed, invoicePaid]) await postStripe(event);
    const nextEnd = nowSeconds() + 60 * 86_400;
    const renewal = await stripeEvent("invoice.paid", {
      id: "in_renewal_1",
      customer: session.customer,
      billing_reason: "subscription_cycle",
      amount_paid: 2900,
      currency: "usd",
      parent: { subscription_details: { subscription: session.subscription, metadata: { project_id: projectId } } },
      lines: { data: [{ period: { end: nextEnd } }] },
    });
    for (let i = 0; i < 2; i++) expect((await postStripe(renewal)).status).toBe(200);
    let billing = await billingOf(owner, projectId);
    expect(billing.renews_at).toBe(new Date(nextEnd * 1000).toISOString());
    expect(billing.payments.filter((p) => p.status === "paid")).toHaveLength(2);
    expect(await planLog(owner, projectId, "billing.plan_renewed")).toHaveLength(1);

    // The subscription is cancelled at the period end: the plan now shows an expiry instead of a renewal.
    const subscription = { id: session.subscription, status: "active", metadata: { project_id: projectId } };
    const cancelling = await stripeEvent("customer.subscription.updated", {
      ...subscription,
      cancel_at_period_end: true,
      items: { data: [{ current_period_end: nextEnd }] },
    });
    await postStripe(cancelling);
    billing = await billingOf(owner, projectId);
    expect(billing).toMatchObject({ plan: "pro", renews_at: null, expires_at: new Date(nextEnd * 1000).toISOString() });

    // It ends; an invoice.paid created before the end but delivered after it does not bring the plan back.
    const ended = await stripeEvent("customer.subscription.deleted", { ...subscription, status: "canceled" });
    const late = await stripeEvent(
      "invoice.paid",
      { ...JSON.parse(renewal.body).data.object, id: "in_late" },
      { created: nowSeconds() - 120 },
    );
    expect((await postStripe(ended)).body.applied).toBe(true);
    expect((await postStripe(late)).body.applied).toBe(false);
    billing = await billingOf(owner, projectId);
    expect(billing).toMatchObject({ plan: "community", renews_at: null, expires_at: null });
    const causes = (await planLog(owner, projectId)).map((e) => e.detail.cause);
    expect(causes).toEqual(["subscription_ended", "renewal_cancelled", "payment"]);
  });

  it("acknowledges events it does not use, and checkouts it did not create, without changes", async () => {
    const other = await stripeEvent("customer.created", { id: "cus_x" });
    expect((await postStripe(other)).body).toMatchObject({ ok: true, applied: false });
    const foreign = await stripeEvent("checkout.session.completed", { id: "cs_not_ours", payment_status: "paid" });
    expect((await postStripe(foreign)).body).toMatchObject({ ok: true, applied: false });
  });

  it("answers 503 card_processor_not_configured without a webhook secret, and 400 to signed bytes that are not an event", async () => {
    const { completed } = await cardCheckout();
    const res = await app.request(
      `${FLEET}/api/billing/webhooks/stripe`,
      { method: "POST", headers: { "stripe-signature": completed.signature }, body: completed.body },
      { ...(env as unknown as FleetBindings), STRIPE_WEBHOOK_SECRET: undefined },
    );
    expect(res.status).toBe(503);
    expect(((await res.json()) as { reason: string }).reason).toBe("card_processor_not_configured");
    for (const [body, reason] of [
      ['{"id":"evt_1","type":"invoice.paid"}', "invalid_body"],
      ["not json", "malformed_json"],
    ]) {
      const res = await postStripe(await stripeSigned(body as string));
      expect(res.status).toBe(400);
      expect(res.body.reason).toBe(reason);
    }
  });
});

describe("lightning payments (BTCPay Server)", () => {
  it("a settled invoice makes the plan pro for 30 days, once, however often it is delivered", async () => {
    const { owner, projectId, invoiceId, paymentId } = await lightningCheckout();
    const settled = await btcpayEvent("InvoiceSettled", invoiceId);
    const before = Date.now();
    expect(await postBtcpay(settled)).toEqual({ status: 200, body: { ok: true, applied: true } });
    const after = Date.now();
    // The same delivery again, and BTCPay's redelivery of it (a new deliveryId).
    expect((await postBtcpay(settled)).body.applied).toBe(false);
    expect((await postBtcpay(await btcpayRedelivery(settled))).body.applied).toBe(false);
    const billing = await billingOf(owner, projectId);
    expect(billing).toMatchObject({ plan: "pro", renews_at: null, card_customer: false });
    const expires = Date.parse(billing.expires_at ?? "");
    // The worker's clock, read around the delivery with a second's slack for skew between the two isolates.
    expect(expires).toBeGreaterThanOrEqual(before + 30 * DAY_MS - 1_000);
    expect(expires).toBeLessThanOrEqual(after + 30 * DAY_MS + 1_000);
    expect(billing.payments).toMatchObject([{ id: paymentId, status: "paid", amount: 50_000, currency: "sats" }]);
    expect(await planLog(owner, projectId)).toHaveLength(1);
  });

  it("out of order: expiry after settlement keeps it paid; settlement after expiry (a late payment) still counts", async () => {
    const first = await lightningCheckout();
    await postBtcpay(await btcpayEvent("InvoiceSettled", first.invoiceId));
    await postBtcpay(await btcpayEvent("InvoiceExpired", first.invoiceId));
    expect((await billingOf(first.owner, first.projectId)).payments[0]?.status).toBe("paid");

    const second = await lightningCheckout();
    await postBtcpay(await btcpayEvent("InvoiceExpired", second.invoiceId));
    expect((await billingOf(second.owner, second.projectId)).payments[0]?.status).toBe("expired");
    expect((await postBtcpay(await btcpayEvent("InvoiceSettled", second.invoiceId))).body.applied).toBe(true);
    const billing = await billingOf(second.owner, second.projectId);
    expect(billing.plan).toBe("pro");
    expect(billing.payments[0]?.status).toBe("paid");
  });

  it("a second payment extends the period from its current end", async () => {
    const { owner, projectId, invoiceId } = await lightningCheckout();
    await postBtcpay(await btcpayEvent("InvoiceSettled", invoiceId));
    const firstEnd = Date.parse((await billingOf(owner, projectId)).expires_at ?? "");
    const again = await owner.call<{ invoice_id: string }>("POST", "/api/checkout/lightning", {
      project_id: projectId,
      tier: "pro",
    });
    await postBtcpay(await btcpayEvent("InvoiceSettled", again.body.invoice_id));
    expect(Date.parse((await billingOf(owner, projectId)).expires_at ?? "")).toBe(firstEnd + 30 * DAY_MS);
  });

  it("refuses unsigned, forged and stale deliveries (401) and changes nothing", async () => {
    const { owner, projectId, invoiceId } = await lightningCheckout();
    const settled = await btcpayEvent("InvoiceSettled", invoiceId);
    const cases: [{ body: string; signature?: string }, string][] = [
      [{ body: settled.body }, "missing_signature"],
      [{ body: settled.body, signature: `sha256=${"ab".repeat(32)}` }, "invalid_signature"],
      [{ body: settled.body, signature: "sha1=abc" }, "invalid_signature"],
      [
        { body: settled.body.replace("InvoiceSettled", "InvoiceSettled "), signature: settled.signature },
        "invalid_signature",
      ],
      [await btcpayEvent("InvoiceSettled", invoiceId, nowSeconds() - 7_200), "webhook_timestamp_stale"],
    ];
    for (const [event, reason] of cases) {
      const res = await postBtcpay(event);
      expect(res.status, reason).toBe(401);
      expect(res.body.reason).toBe(reason);
    }
    const billing = await billingOf(owner, projectId);
    expect(billing.plan).toBe("community");
    expect(billing.payments[0]?.status).toBe("pending");
  });

  it("ignores invoices it did not create, and answers 503 without a webhook secret", async () => {
    const foreign = await btcpayEvent("InvoiceSettled", "not-ours");
    expect((await postBtcpay(foreign)).body).toMatchObject({ ok: true, applied: false });
    const res = await app.request(
      `${FLEET}/api/billing/webhooks/btcpay`,
      { method: "POST", headers: { "btcpay-sig": foreign.signature }, body: foreign.body },
      { ...(env as unknown as FleetBindings), BTCPAY_WEBHOOK_SECRET: undefined },
    );
    expect(res.status).toBe(503);
    expect(((await res.json()) as { reason: string }).reason).toBe("lightning_processor_not_configured");
  });
});

describe("processor event ids", () => {
  it("are forgotten by the reconciler after their retention, never before", async () => {
    const old = Date.now() - PROCESSOR_EVENT_RETENTION_MS - 1_000;
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO processor_events (processor, event_id, type, apply_id, received_at) VALUES ('card', 'evt_old_1', 't', 'a', ?)",
      ).bind(old),
      env.DB.prepare(
        "INSERT INTO processor_events (processor, event_id, type, apply_id, received_at) VALUES ('card', 'evt_new_1', 't', 'a', ?)",
      ).bind(Date.now()),
    ]);
    await reconcile(env as unknown as FleetBindings);
    const left = await env.DB.prepare(
      "SELECT event_id FROM processor_events WHERE event_id IN ('evt_old_1', 'evt_new_1')",
    ).all<{ event_id: string }>();
    expect(left.results.map((r) => r.event_id)).toEqual(["evt_new_1"]);
  });
});
