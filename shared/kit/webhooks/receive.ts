// A ready Fetch-API receiver (Workers, Deno, Bun, Node 20+ with a Request): verify, dedupe, run the handler, then
// mark the key done. 401 for a bad signature, timestamp or idempotency key, 400 for a malformed body, 200 for a
// duplicate (so the sender stops retrying), 500 when the handler throws (the key is not marked, so the retry runs
// it again).
import type { IdempotencyStore } from "./idempotency";
import { type VerifyWebhookInput, verifyWebhook, type WebhookFailure, type WebhookVerification } from "./verify";

export type VerifiedWebhook = Extract<WebhookVerification, { ok: true }>;

export interface ReceiveOptions extends Omit<VerifyWebhookInput, "headers" | "body" | "store"> {
  store?: IdempotencyStore;
}

/** The answer to each refusal; exhaustive, so a new reason does not compile until it has a status. */
function failureStatus(reason: WebhookFailure): 200 | 400 | 401 {
  switch (reason) {
    case "duplicate":
      return 200;
    case "malformed_body":
      return 400;
    case "missing_signature":
    case "invalid_signature":
    case "timestamp_out_of_window":
    case "idempotency_key_mismatch":
      return 401;
    default: {
      const unhandled: never = reason;
      throw new TypeError(`no status for ${String(unhandled)}`);
    }
  }
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export async function receiveWebhook(
  request: Request,
  options: ReceiveOptions,
  handler: (delivery: VerifiedWebhook) => unknown | Promise<unknown>,
): Promise<Response> {
  const body = new Uint8Array(await request.arrayBuffer());
  const result = await verifyWebhook({ ...options, headers: request.headers, body });
  if (!result.ok) {
    if (result.reason === "duplicate") return json(200, { ok: true, duplicate: true });
    return json(failureStatus(result.reason), { ok: false, reason: result.reason });
  }
  try {
    await handler(result);
  } catch {
    return json(500, { ok: false, reason: "handler_failed" });
  }
  await options.store?.add(result.idempotencyKey);
  return json(200, { ok: true });
}
