// One delivery handled exactly as a receiver must, in any runtime (Node gives headers and bytes, Workers a
// Request: receive.ts): verify, skip a key already processed, run the handler, and mark the key done only once the
// handler succeeded, so a failed handler gets the retry and the same genuine delivery posted twice runs it once.
// Two copies arriving at once in one process: the second waits for no one, it answers 409 and the sender retries.
import type { IdempotencyStore } from "./idempotency";
import { type VerifyWebhookInput, verifyWebhook, type WebhookFailure, type WebhookVerification } from "./verify";

export type VerifiedWebhook = Extract<WebhookVerification, { ok: true }>;

export interface HandleWebhookInput extends VerifyWebhookInput {
  /** Where processed idempotency keys are kept: MemoryIdempotencyStore (one process), kvIdempotencyStore, yours. */
  store: IdempotencyStore;
}

/** Why a delivery was not handled now, beside verifyWebhook's reasons. */
export type WebhookRefusal =
  | WebhookFailure
  | "in_progress" // the same key is being handled right now in this process: 409, the sender retries later
  | "handler_failed"; // the handler threw: 500, the key is not marked, the retry runs it again

/** The answer to send: status and JSON body. */
export interface WebhookAnswer {
  status: 200 | 400 | 401 | 409 | 500;
  body: { ok: true; duplicate?: true } | { ok: false; reason: WebhookRefusal };
}

/** The answer to each refusal; exhaustive, so a new reason does not compile until it has a status. */
function failureStatus(reason: WebhookRefusal): WebhookAnswer["status"] {
  switch (reason) {
    case "malformed_body":
      return 400;
    case "missing_signature":
    case "invalid_signature":
    case "timestamp_out_of_window":
    case "idempotency_key_mismatch":
      return 401;
    case "in_progress":
      return 409;
    case "handler_failed":
      return 500;
    default: {
      const unhandled: never = reason;
      throw new TypeError(`no status for ${String(unhandled)}`);
    }
  }
}

const refuse = (reason: WebhookRefusal): WebhookAnswer => ({
  status: failureStatus(reason),
  body: { ok: false, reason },
});

/** Keys being handled now, per store (a WeakMap: a store dropped by the app takes its set with it). */
const handling = new WeakMap<IdempotencyStore, Set<string>>();

/**
 * `const answer = await handleWebhook({ secret, headers, body, store }, async (delivery) => …)`, then send
 * `answer.status` with `answer.body` as JSON. 200 after the handler or for a duplicate (`{ok:true, duplicate:true}`:
 * the sender stops), 401/400 for a delivery that does not verify, 409 while the same key is in progress, 500 when
 * the handler throws.
 */
export async function handleWebhook(
  input: HandleWebhookInput,
  handler: (delivery: VerifiedWebhook) => unknown,
): Promise<WebhookAnswer> {
  const result = await verifyWebhook(input);
  if (!result.ok) return refuse(result.reason);
  const key = result.idempotencyKey;
  const inFlight = handling.get(input.store) ?? new Set<string>();
  handling.set(input.store, inFlight);
  if (inFlight.has(key)) return refuse("in_progress");
  inFlight.add(key);
  try {
    if (await input.store.has(key)) return { status: 200, body: { ok: true, duplicate: true } };
    try {
      await handler(result);
    } catch {
      return refuse("handler_failed");
    }
    await input.store.add(key);
    return { status: 200, body: { ok: true } };
  } finally {
    inFlight.delete(key);
  }
}
