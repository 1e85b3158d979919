// A ready Fetch-API receiver (Workers, Deno, Bun, Node 20+ with a Request): handleWebhook over a Request, its
// answer as a Response. 401 for a bad signature, timestamp or idempotency key, 400 for a malformed body, 200 for a
// duplicate (so the sender stops retrying), 409 while the same key is in progress, 500 when the handler throws
// (the key is not marked, so the retry runs it again).
import { type HandleWebhookInput, handleWebhook, type VerifiedWebhook } from "./handle";

export type ReceiveOptions = Omit<HandleWebhookInput, "headers" | "body">;

/** `return receiveWebhook(request, { secret, store }, async (delivery) => …)`. */
export async function receiveWebhook(
  request: Request,
  options: ReceiveOptions,
  handler: (delivery: VerifiedWebhook) => unknown,
): Promise<Response> {
  const body = new Uint8Array(await request.arrayBuffer());
  const answer = await handleWebhook({ ...options, headers: request.headers, body }, handler);
  return new Response(JSON.stringify(answer.body), {
    status: answer.status,
    headers: { "content-type": "application/json" },
  });
}
