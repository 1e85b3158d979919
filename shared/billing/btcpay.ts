// The lightning processor adapter: a BTCPay Server store through its Greenfield API (`Authorization: token <key>`):
// create an invoice in sats and hand back its checkout link; and BTCPay's webhook signature (`BTCPay-Sig:
// sha256=<hex>`, HMAC-SHA256 of the raw body with the webhook secret). The payload's `timestamp` must lie within an
// hour of now: BTCPay retries a failed delivery for minutes, not hours, so an older payload is a replay.
// Configured by BTCPAY_URL, BTCPAY_API_KEY, BTCPAY_STORE_ID and BTCPAY_WEBHOOK_SECRET (DECISIONS 27).
import { hex } from "@scure/base";
import { utf8 } from "../crypto/digest";
import { hmacSha256Verify } from "../crypto/hmac";
import { AppError } from "../errors";
import { withinSeconds } from "../time";
import { callProcessor, stringField } from "./processor-http";
import type { SignatureVerdict } from "./signature";

export const BTCPAY_TOLERANCE_SECONDS = 3_600;

export interface BtcpayEnv {
  BTCPAY_URL?: string;
  BTCPAY_API_KEY?: string;
  BTCPAY_STORE_ID?: string;
  BTCPAY_WEBHOOK_SECRET?: string;
}

export interface BtcpayConfig {
  url: string;
  apiKey: string;
  storeId: string;
}

/**
 * The store's configuration, or 503 lightning_processor_not_configured. The webhook secret is required too: an
 * invoice whose settlement could not be verified would take money without changing the plan.
 */
export function btcpayConfig(env: BtcpayEnv): BtcpayConfig {
  if (!env.BTCPAY_URL || !env.BTCPAY_API_KEY || !env.BTCPAY_STORE_ID || !env.BTCPAY_WEBHOOK_SECRET) {
    throw new AppError("lightning_processor_not_configured");
  }
  return { url: env.BTCPAY_URL.replace(/\/+$/, ""), apiKey: env.BTCPAY_API_KEY, storeId: env.BTCPAY_STORE_ID };
}

export interface LightningInvoiceInput {
  paymentId: string;
  projectId: string;
  tier: string;
  amountSats: number;
  redirectUrl: string;
}

export async function createInvoice(config: BtcpayConfig, input: LightningInvoiceInput) {
  const answer = await callProcessor(`${config.url}/api/v1/stores/${encodeURIComponent(config.storeId)}/invoices`, {
    method: "POST",
    headers: { authorization: `token ${config.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      amount: String(input.amountSats),
      currency: "SATS",
      metadata: { orderId: input.paymentId, project_id: input.projectId, tier: input.tier },
      checkout: { redirectURL: input.redirectUrl, redirectAutomatically: true },
    }),
  });
  if (answer.kind === "unreachable") {
    throw new AppError("lightning_processor_fetch_error", { detail: `lightning processor ${answer.message}` });
  }
  if (answer.kind === "error") throw new AppError("lightning_processor_error", { detail: answer.message });
  const id = stringField(answer.body, "id");
  const checkoutLink = stringField(answer.body, "checkoutLink");
  if (!id || !checkoutLink || !/^https?:\/\//.test(checkoutLink)) {
    throw new AppError("lightning_processor_error", { detail: "the invoice has no id or checkout link" });
  }
  return { id, checkoutLink };
}

/**
 * Checks `BTCPay-Sig` over the raw body, then the payload's own `timestamp` (unix seconds, inside the signed bytes).
 * A signed body that is not JSON passes here and is refused by the caller's parse.
 */
export async function verifyBtcpaySignature(
  secret: string,
  rawBody: string,
  header: string | null | undefined,
  now: number,
  toleranceSeconds = BTCPAY_TOLERANCE_SECONDS,
): Promise<SignatureVerdict> {
  if (!header) return { ok: false, reason: "missing_signature", detail: "no BTCPay-Sig header" };
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match?.[1]) return { ok: false, reason: "invalid_signature", detail: "BTCPay-Sig is not sha256=<64 hex>" };
  if (!(await hmacSha256Verify(utf8(secret), hex.decode(match[1].toLowerCase()), utf8(rawBody)))) {
    return { ok: false, reason: "invalid_signature", detail: "BTCPay-Sig does not match the body" };
  }
  let timestamp: unknown;
  try {
    timestamp = (JSON.parse(rawBody) as { timestamp?: unknown } | null)?.timestamp;
  } catch {
    return { ok: true };
  }
  if (!withinSeconds(timestamp, now, toleranceSeconds)) {
    return { ok: false, reason: "webhook_timestamp_stale", detail: "the payload timestamp is outside the tolerance" };
  }
  return { ok: true };
}
