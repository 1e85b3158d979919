// A webhook subscriber on Cloudflare Workers (docs/kit.md): receiveWebhook verifies the raw bytes, dedupes by
// idempotency key in a KV namespace, runs the handler and marks the key only when it succeeded. In a project that
// installed @open-oc/kit, import from "@open-oc/kit/webhooks".
import { kvIdempotencyStore, receiveWebhook } from "../webhooks";

interface Env {
  WEBHOOK_SECRET: string;
  SEEN: KVNamespace;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
    return receiveWebhook(request, { secret: env.WEBHOOK_SECRET, store: kvIdempotencyStore(env.SEEN) }, (delivery) => {
      console.log(`${delivery.eventType} ${delivery.event.id} attempt ${delivery.attempt}`);
    });
  },
} satisfies ExportedHandler<Env>;
