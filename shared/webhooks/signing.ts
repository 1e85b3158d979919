// Delivery headers and signatures (service-spec "Delivery headers"; DECISIONS 15): X-Service-* signed GitHub-style
// with the whole secret string, Standard Webhooks `webhook-*` signed with the base64-decoded secret bytes.
// During a secret roll's overlap X-Service-Signature (one value, by the spec) stays by the previous secret, the one
// every receiver that has not switched yet holds, and X-Service-Signature-Next carries the new secret's HMAC;
// webhook-signature lists a signature by each (issue 26).
import { base64, hex } from "@scure/base";
import { sha256Hex, utf8 } from "../crypto/digest";
import { hmacSha256, hmacSha256Verify } from "../crypto/hmac";
import { withinSeconds } from "../time";
import { secretKeyBytes } from "./secrets";

export interface DeliveryInput {
  secret: string;
  /**
   * A rolled secret still in its overlap: it signs X-Service-Signature (the new `secret` signs
   * X-Service-Signature-Next), and the Standard Webhooks header carries a signature by it beside the new one's.
   */
  previousSecret?: string;
  /** The raw JSON text sent as the body, byte for byte: receivers sign what they receive, not a re-serialisation. */
  body: string;
  eventType: string;
  /** Opaque id of this attempt. */
  deliveryId: string;
  /** Stable per event fanout and endpoint across attempts; also the Standard Webhooks `webhook-id`. */
  idempotencyKey: string;
  /** 1-based. */
  attempt: number;
  /** An operator-triggered retry. */
  manual: boolean;
  /** Send time in ms: sign each attempt when it goes out, never at enqueue (a retry 8 h later needs a fresh stamp). */
  now: number;
}

export type SignatureCheck =
  | { ok: true }
  | { ok: false; reason: "missing_signature" | "invalid_signature"; detail: string };

export const STANDARD_TOLERANCE_SECONDS = 300;

export async function deliveryHeaders(input: DeliveryInput): Promise<Record<string, string>> {
  const { secret, body, attempt, idempotencyKey } = input;
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be an integer >= 1, got ${attempt}`);
  // Standard Webhooks signs "{id}.{timestamp}.{body}": a dot in the id would make that ambiguous.
  if (!/^[^\s.]+$/.test(idempotencyKey))
    throw new TypeError("idempotencyKey must be non-empty, without dots or spaces");
  const timestamp = String(Math.floor(input.now / 1000));
  const bodyBytes = utf8(body);
  const standardSigned = utf8(`${idempotencyKey}.${timestamp}.${body}`);
  const previous = input.previousSecret;
  const standardKeys = [secret, ...(previous === undefined ? [] : [previous])];
  const [payloadSha, serviceSig, nextSig, ...standardSigs] = await Promise.all([
    sha256Hex(bodyBytes),
    // The key receivers hold until the overlap ends; the new key's HMAC rides beside it while rolling.
    hmacSha256(utf8(previous ?? secret), bodyBytes),
    previous === undefined ? undefined : hmacSha256(utf8(secret), bodyBytes),
    ...standardKeys.map((key) => hmacSha256(secretKeyBytes(key), standardSigned)),
  ]);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "X-Service-Event": input.eventType,
    "X-Service-Delivery": input.deliveryId,
    "X-Service-Idempotency-Key": idempotencyKey,
    "X-Service-Payload-SHA256": payloadSha,
    "X-Service-Signature": `sha256=${hex.encode(serviceSig)}`,
  };
  if (nextSig) headers["X-Service-Signature-Next"] = `sha256=${hex.encode(nextSig)}`;
  if (attempt > 1) {
    headers["X-Service-Attempt"] = String(attempt);
    headers["X-Service-Redelivery"] = "true";
  }
  if (input.manual) headers["X-Service-Manual-Retry"] = "true";
  headers["webhook-id"] = idempotencyKey;
  headers["webhook-timestamp"] = timestamp;
  // Several signatures are space-separated; a receiver accepts the body when any matches its secret.
  headers["webhook-signature"] = standardSigs.map((mac) => `v1,${base64.encode(mac)}`).join(" ");
  return headers;
}

/** A received body: its text, or its raw bytes (signatures are over the bytes, so bytes are exact). */
export type RawBody = string | Uint8Array;

const rawBytes = (body: RawBody) => (typeof body === "string" ? utf8(body) : body);

/** Checks `X-Service-Signature: sha256=<hex>` over the raw body, keyed by the whole secret string. */
export async function verifyServiceSignature(
  secret: string,
  body: RawBody,
  header: string | null | undefined,
): Promise<SignatureCheck> {
  if (!header) return fail("missing_signature", "no X-Service-Signature header");
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match?.[1]) return fail("invalid_signature", "X-Service-Signature is not sha256=<64 hex>");
  const ok = await hmacSha256Verify(utf8(secret), hex.decode(match[1].toLowerCase()), rawBytes(body));
  return ok ? { ok: true } : fail("invalid_signature", "signature does not match the body");
}

/**
 * Checks the Standard Webhooks headers as the reference library does: any `v1,` entry of the space-separated
 * list may match, other versions are ignored, and the timestamp must lie within ±toleranceSeconds of `now` (ms).
 */
export async function verifyStandardSignature(
  secret: string,
  headers: Headers | Record<string, string | undefined>,
  body: RawBody,
  now: number,
  toleranceSeconds = STANDARD_TOLERANCE_SECONDS,
): Promise<SignatureCheck> {
  const id = readHeader(headers, "webhook-id");
  const timestamp = readHeader(headers, "webhook-timestamp");
  const signature = readHeader(headers, "webhook-signature");
  if (!id || !timestamp || !signature) return fail("missing_signature", "webhook-id, -timestamp and -signature needed");
  if (!/^\d+$/.test(timestamp)) return fail("invalid_signature", "webhook-timestamp is not unix seconds");
  if (!withinSeconds(Number(timestamp), now, toleranceSeconds)) {
    return fail("invalid_signature", "webhook-timestamp is outside the tolerance");
  }
  const key = secretKeyBytes(secret);
  const prefix = utf8(`${id}.${timestamp}.`);
  const raw = rawBytes(body);
  const signed = new Uint8Array(prefix.length + raw.length);
  signed.set(prefix);
  signed.set(raw, prefix.length);
  for (const entry of signature.split(" ")) {
    const [version, value] = entry.split(",");
    if (version !== "v1" || !value) continue;
    const mac = decodeBase64OrNull(value);
    if (mac && (await hmacSha256Verify(key, mac, signed))) return { ok: true };
  }
  return fail("invalid_signature", "no v1 signature matches");
}

function readHeader(headers: Headers | Record<string, string | undefined>, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function decodeBase64OrNull(text: string): Uint8Array | null {
  try {
    return base64.decode(text);
  } catch {
    return null;
  }
}

function fail(reason: "missing_signature" | "invalid_signature", detail: string): SignatureCheck {
  return { ok: false, reason, detail };
}
