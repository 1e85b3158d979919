// The card processor adapter: Stripe's REST API (form-encoded, Bearer secret key) for Checkout Sessions and customer
// portal sessions, and Stripe's webhook signature (`Stripe-Signature: t=…,v1=…`, HMAC-SHA256 over "{t}.{raw body}"
// with the endpoint secret, 300 s tolerance as stripe-node). Configured by STRIPE_API_BASE, STRIPE_SECRET_KEY and
// STRIPE_WEBHOOK_SECRET (DECISIONS 27).
import { hex } from "@scure/base";
import { utf8 } from "../crypto/digest";
import { hmacSha256Verify } from "../crypto/hmac";
import { AppError } from "../errors";
import { withinSeconds } from "../time";
import { callProcessor, stringField } from "./processor-http";
import type { SignatureVerdict } from "./signature";

export const STRIPE_DEFAULT_API_BASE = "https://api.stripe.com";
export const STRIPE_TOLERANCE_SECONDS = 300;

export interface StripeEnv {
  STRIPE_API_BASE?: string;
  STRIPE_SECRET_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
}

export interface StripeConfig {
  apiBase: string;
  secretKey: string;
}

/** The API client's configuration, or 503 card_processor_not_configured. */
export function stripeConfig(env: StripeEnv): StripeConfig {
  if (!env.STRIPE_SECRET_KEY) throw new AppError("card_processor_not_configured");
  return {
    apiBase: (env.STRIPE_API_BASE || STRIPE_DEFAULT_API_BASE).replace(/\/+$/, ""),
    secretKey: env.STRIPE_SECRET_KEY,
  };
}

type FormValue = string | number | boolean | undefined | null | FormValue[] | { [key: string]: FormValue };

/** Stripe's form encoding of nested parameters: `a[b][0][c]=v`; undefined and null are left out. */
export function formEncode(params: Record<string, FormValue>): string {
  const pairs: string[] = [];
  const walk = (prefix: string, value: FormValue) => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(`${prefix}[${i}]`, item);
    } else if (typeof value === "object") {
      for (const [k, v] of Object.entries(value)) walk(`${prefix}[${k}]`, v);
    } else {
      pairs.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(String(value))}`);
    }
  };
  for (const [key, value] of Object.entries(params)) walk(key, value);
  return pairs.join("&");
}

async function post(config: StripeConfig, path: string, params: Record<string, FormValue>, idempotencyKey?: string) {
  const answer = await callProcessor(`${config.apiBase}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${config.secretKey}`,
      "content-type": "application/x-www-form-urlencoded",
      ...(idempotencyKey && { "idempotency-key": idempotencyKey }),
    },
    body: formEncode(params),
  });
  if (answer.kind === "unreachable")
    throw new AppError("card_processor_error", { detail: `card processor ${answer.message}` });
  if (answer.kind === "error") throw new AppError("card_processor_error", { detail: answer.message });
  const url = stringField(answer.body, "url");
  if (!url || !/^https?:\/\//.test(url)) throw new AppError("card_processor_no_url");
  return { id: stringField(answer.body, "id") ?? "", url };
}

export interface CardCheckout {
  paymentId: string;
  projectId: string;
  tier: string;
  productName: string;
  unitAmountCents: number;
  customerId: string | null;
  successUrl: string;
  cancelUrl: string;
}

/** A subscription-mode Checkout Session; the payment id is the idempotency key and travels back in metadata. */
export function createCheckoutSession(config: StripeConfig, input: CardCheckout) {
  const metadata = { project_id: input.projectId, payment_id: input.paymentId, tier: input.tier };
  return post(
    config,
    "/v1/checkout/sessions",
    {
      mode: "subscription",
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      client_reference_id: input.projectId,
      customer: input.customerId ?? undefined,
      metadata,
      subscription_data: { metadata },
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: "usd",
            unit_amount: input.unitAmountCents,
            recurring: { interval: "month" },
            product_data: { name: input.productName },
          },
        },
      ],
    },
    input.paymentId,
  );
}

export function createPortalSession(config: StripeConfig, input: { customerId: string; returnUrl: string }) {
  return post(config, "/v1/billing_portal/sessions", { customer: input.customerId, return_url: input.returnUrl });
}

/** Checks `Stripe-Signature` over the raw body: any v1 entry may match; the timestamp within ±tolerance of now. */
export async function verifyStripeSignature(
  secret: string,
  rawBody: string,
  header: string | null | undefined,
  now: number,
  toleranceSeconds = STRIPE_TOLERANCE_SECONDS,
): Promise<SignatureVerdict> {
  if (!header) return { ok: false, reason: "missing_signature", detail: "no Stripe-Signature header" };
  const parts = header.split(",").map((part) => part.trim().split("="));
  const timestamp = parts.find(([key]) => key === "t")?.[1];
  const candidates = parts.filter(([key, value]) => key === "v1" && value && /^[0-9a-f]{64}$/i.test(value));
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || candidates.length === 0) {
    return { ok: false, reason: "invalid_signature", detail: "Stripe-Signature needs t= and a v1= entry" };
  }
  const signed = utf8(`${timestamp}.${rawBody}`);
  let matched = false;
  for (const [, value] of candidates) {
    if (await hmacSha256Verify(utf8(secret), hex.decode((value as string).toLowerCase()), signed)) matched = true;
  }
  if (!matched) return { ok: false, reason: "invalid_signature", detail: "no v1 signature matches the body" };
  // Checked after the signature, so a forged header learns nothing about the clock.
  if (!withinSeconds(Number(timestamp), now, toleranceSeconds)) {
    return {
      ok: false,
      reason: "webhook_timestamp_stale",
      detail: "Stripe-Signature timestamp is outside the tolerance",
    };
  }
  return { ok: true };
}
