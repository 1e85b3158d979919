// The payment processors' webhooks: POST /api/billing/webhooks/stripe (`Stripe-Signature`) and
// /api/billing/webhooks/btcpay (`BTCPay-Sig`). The signature is checked over the raw bytes before anything is
// parsed; unsigned, forged and stale deliveries are refused (401) and change nothing. Accepted events answer 200
// whether or not they changed anything, so the processor stops retrying; a redelivery is acknowledged and ignored.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ZodType } from "zod";
import { verifyBtcpaySignature } from "../../../../shared/billing/btcpay";
import type { SignatureVerdict } from "../../../../shared/billing/signature";
import { verifyStripeSignature } from "../../../../shared/billing/stripe";
import { asWriteFailure } from "../../../../shared/db/write-failure";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { routeGroup } from "../../../../shared/validate";
import { applyBtcpayEvent, BtcpayEvent } from "../billing/btcpay-events";
import { applyStripeEvent, type Outcome, StripeEvent } from "../billing/stripe-events";
import type { FleetEnv } from "../env";
import { shardsOf } from "../registry/shards";

export const billingWebhookRoutes = routeGroup<FleetEnv>();

const Received = z.object({ ok: z.literal(true), applied: z.boolean(), ignored: z.string().optional() });
const WEBHOOK_ERRORS = [
  "missing_signature",
  "invalid_signature",
  "webhook_timestamp_stale",
  "malformed_json",
  "invalid_body",
] as const;

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new AppError("malformed_json");
  }
}

function refuse(verdict: SignatureVerdict): void {
  if (!verdict.ok) throw new AppError(verdict.reason, { detail: verdict.detail });
}

function validated<T>(schema: ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppError("invalid_body", { detail: "not an event of the expected shape" });
  return parsed.data;
}

const answer = (c: Context<FleetEnv>, outcome: Outcome) => c.json({ ok: true as const, ...outcome }, 200);

billingWebhookRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/billing/webhooks/stripe",
    summary: "Stripe's signed events: checkout completed, invoice paid, subscription updated or deleted",
    responses: {
      200: json(Received, "Received"),
      ...errorResponses(...WEBHOOK_ERRORS, "card_processor_not_configured", "apply_failed"),
    },
  }),
  async (c) => {
    const secret = c.env.STRIPE_WEBHOOK_SECRET;
    if (!secret) throw new AppError("card_processor_not_configured", { detail: "STRIPE_WEBHOOK_SECRET is not set" });
    const raw = await c.req.text();
    refuse(await verifyStripeSignature(secret, raw, c.req.header("stripe-signature"), Date.now()));
    const event = validated(StripeEvent, parseJson(raw));
    return answer(
      c,
      await asWriteFailure("apply_failed", () => offerEveryShard(c.env, (d1) => applyStripeEvent(d1, event))),
    );
  },
);

billingWebhookRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/billing/webhooks/btcpay",
    summary: "BTCPay Server's signed events: invoice settled, expired or invalid",
    responses: {
      200: json(Received, "Received"),
      ...errorResponses(...WEBHOOK_ERRORS, "lightning_processor_not_configured", "apply_failed"),
    },
  }),
  async (c) => {
    const secret = c.env.BTCPAY_WEBHOOK_SECRET;
    const storeId = c.env.BTCPAY_STORE_ID;
    if (!secret || !storeId) throw new AppError("lightning_processor_not_configured");
    const raw = await c.req.text();
    refuse(await verifyBtcpaySignature(secret, raw, c.req.header("btcpay-sig"), Date.now()));
    const body = parseJson(raw);
    const event = validated(BtcpayEvent, body);
    return answer(
      c,
      await asWriteFailure("apply_failed", () => offerEveryShard(c.env, (d1) => applyBtcpayEvent(d1, event, storeId))),
    );
  },
);

/**
 * A processor's event concerns one project, so one shard: every shard is offered it (in parallel) and finds the
 * payment or subscription it names, or ignores it as another registry's. The answer is the shard that applied it,
 * else the one that knew it (a repeat), else the first shard's reason for ignoring it.
 */
async function offerEveryShard(env: object, apply: (d1: D1Database) => Promise<Outcome>): Promise<Outcome> {
  const outcomes = await Promise.all(shardsOf(env).map((shard) => apply(shard.db)));
  return outcomes.find((o) => o.applied) ?? outcomes.find((o) => o.ignored === undefined) ?? (outcomes[0] as Outcome);
}
