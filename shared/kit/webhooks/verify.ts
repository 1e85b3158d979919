// Receiving the fleet's webhooks (issue 8, part 3): the Standard Webhooks signature checked over the raw bytes with
// the project's own verifiers (shared/webhooks/signing.ts: WebCrypto HMAC verify, constant time), the timestamp
// inside ±300 s (the reference library's window, both directions), and a typed result with a reason. The fleet's
// own X-Service-Signature is checked too only when asked (`scheme: "both"` or `"service"`): by default a proxy that
// drops custom headers loses nothing. Dedupe is handle.ts's (verify, then the store, then the handler, then mark).
// Runs in Workers and Node 20+.
//
// Replay (issue 26): only the Standard Webhooks headers bind a delivery to a time (webhook-timestamp) and to its
// dedupe key (webhook-id, inside the signed string); X-Service-Signature covers the body alone. So with the Standard
// headers checked the key is the signed webhook-id, and an X-Service-Idempotency-Key that says otherwise is refused.
// With scheme "service" only, nothing signed names a time or a key: a captured delivery replays at any time under
// any new X-Service-Idempotency-Key, and the dedupe store cannot tell. That scheme has no replay protection.

import { withinSeconds } from "../../time";
import { type RawBody, verifyServiceSignature, verifyStandardSignature } from "../../webhooks/signing";

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** What the fleet posts: the registered envelope's event (or `test.ping`, whose envelope is null). */
export interface WebhookEvent {
  id: string;
  project_id: string;
  kind: string;
  envelope: Record<string, unknown> | null;
  delegation_id?: string;
}

export type WebhookFailure =
  | "missing_signature" // a required header is absent
  | "invalid_signature" // no signature matches the bytes under any of the secrets
  | "timestamp_out_of_window" // webhook-timestamp more than the tolerance in the past or the future
  | "idempotency_key_mismatch" // X-Service-Idempotency-Key differs from the signed webhook-id (an altered replay)
  | "malformed_body"; // signed, but not the JSON object the fleet sends

export type WebhookVerification =
  | {
      ok: true;
      event: WebhookEvent;
      /** X-Service-Event, e.g. delegation.registered */
      eventType: string | undefined;
      /**
       * Stable across retries of one event to one endpoint: the dedupe key. The signed `webhook-id` when the Standard
       * headers are checked; in scheme "service" the unsigned X-Service-Idempotency-Key (no replay protection).
       */
      idempotencyKey: string;
      /** X-Service-Delivery: this attempt's id. */
      deliveryId: string | undefined;
      attempt: number;
      redelivery: boolean;
      manualRetry: boolean;
      /** webhook-timestamp, epoch seconds (undefined in scheme "service"). */
      timestamp: number | undefined;
    }
  | { ok: false; reason: WebhookFailure; detail: string; idempotencyKey?: string };

export interface VerifyWebhookInput {
  /**
   * The endpoint's whsec_… secret; several during a rotation (any may match). During the fleet's roll overlap
   * X-Service-Signature is by the old secret and X-Service-Signature-Next by the new: either may match.
   */
  secret: string | readonly string[];
  headers: Headers | Record<string, string | string[] | undefined>;
  /** The body exactly as received: bytes (Node Buffer, ArrayBuffer) or the text of them. Never re-serialised JSON. */
  body: RawBody | ArrayBuffer;
  /**
   * "standard" (default): the Standard Webhooks headers alone. "both": X-Service-Signature as well (opt in, for a
   * receiver that wants the fleet's own header too). "service" alone has no replay protection: no timestamp, and
   * its idempotency key is not signed.
   */
  scheme?: "standard" | "both" | "service";
  toleranceSeconds?: number;
  /** Epoch ms; default Date.now(). */
  now?: number;
}

function read(headers: VerifyWebhookInput["headers"], name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

const fail = (reason: WebhookFailure, detail: string, idempotencyKey?: string): WebhookVerification => ({
  ok: false,
  reason,
  detail,
  ...(idempotencyKey !== undefined && { idempotencyKey }),
});

async function anySecret(
  secrets: readonly string[],
  check: (secret: string) => Promise<{ ok: boolean; reason?: string; detail?: string }>,
) {
  let last: { ok: boolean; reason?: string; detail?: string } = { ok: false, reason: "invalid_signature" };
  for (const secret of secrets) {
    last = await check(secret);
    if (last.ok || last.reason === "missing_signature") return last;
  }
  return last;
}

/**
 * Verifies one delivery (signature, timestamp, body); never dedupes: a receiver that handles deliveries uses
 * handleWebhook or receiveWebhook, which keep the idempotency store.
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookVerification> {
  const scheme = input.scheme ?? "standard";
  const secrets = typeof input.secret === "string" ? [input.secret] : [...input.secret];
  if (secrets.length === 0) throw new TypeError("verifyWebhook needs at least one secret");
  const body = input.body instanceof ArrayBuffer ? new Uint8Array(input.body) : input.body;
  const now = input.now ?? Date.now();
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const flat: Record<string, string | undefined> = {};
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) flat[name] = read(input.headers, name);
  const serviceKey = read(input.headers, "x-service-idempotency-key");

  let timestamp: number | undefined;
  if (scheme !== "service") {
    const stamp = flat["webhook-timestamp"];
    if (!flat["webhook-id"] || !stamp || !flat["webhook-signature"]) {
      return fail("missing_signature", "webhook-id, webhook-timestamp and webhook-signature are needed");
    }
    if (!/^\d+$/.test(stamp)) return fail("invalid_signature", "webhook-timestamp is not unix seconds");
    timestamp = Number(stamp);
    if (!withinSeconds(timestamp, now, tolerance)) {
      return fail("timestamp_out_of_window", `webhook-timestamp is more than ${tolerance} s from now`);
    }
    const standard = await anySecret(secrets, (s) => verifyStandardSignature(s, flat, body, now, tolerance));
    if (!standard.ok) return fail(standard.reason as WebhookFailure, standard.detail ?? "Standard Webhooks signature");
  }
  if (scheme !== "standard") {
    const header = read(input.headers, "x-service-signature");
    // During a roll's overlap the fleet signs X-Service-Signature with the old secret and adds the new secret's
    // HMAC as X-Service-Signature-Next (shared/webhooks/signing.ts): a receiver holding either verifies.
    const next = read(input.headers, "x-service-signature-next");
    const service = await anySecret(secrets, async (s) => {
      const primary = await verifyServiceSignature(s, body, header);
      if (primary.ok || primary.reason === "missing_signature" || !next) return primary;
      const byNext = await verifyServiceSignature(s, body, next);
      return byNext.ok ? byNext : primary;
    });
    if (!service.ok) return fail(service.reason as WebhookFailure, service.detail ?? "X-Service-Signature");
  }
  let idempotencyKey: string | undefined;
  if (scheme === "service") {
    // Unsigned: a replay may carry any key it likes (see the top of this file).
    idempotencyKey = serviceKey ?? flat["webhook-id"];
  } else {
    // webhook-id is inside the verified Standard signature; the unsigned header may only repeat it.
    idempotencyKey = flat["webhook-id"];
    if (serviceKey !== undefined && serviceKey !== idempotencyKey) {
      return fail("idempotency_key_mismatch", "X-Service-Idempotency-Key is not the signed webhook-id");
    }
  }
  if (!idempotencyKey) return fail("missing_signature", "no X-Service-Idempotency-Key or webhook-id");

  let event: WebhookEvent;
  try {
    const text =
      typeof body === "string" ? body : new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body);
    event = JSON.parse(text) as WebhookEvent;
  } catch {
    return fail("malformed_body", "the body is not UTF-8 JSON", idempotencyKey);
  }
  if (typeof event !== "object" || event === null || typeof event.id !== "string" || typeof event.kind !== "string") {
    return fail("malformed_body", "the body is not a fleet event object", idempotencyKey);
  }
  const attempt = Number(read(input.headers, "x-service-attempt") ?? "1");
  return {
    ok: true,
    event,
    eventType: read(input.headers, "x-service-event"),
    idempotencyKey,
    deliveryId: read(input.headers, "x-service-delivery"),
    attempt: Number.isInteger(attempt) && attempt >= 1 ? attempt : 1,
    redelivery: read(input.headers, "x-service-redelivery") === "true",
    manualRetry: read(input.headers, "x-service-manual-retry") === "true",
    timestamp,
  };
}
