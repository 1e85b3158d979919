#!/usr/bin/env node
// A webhook subscriber in plain Node (docs/quickstart/webhook-subscriber.md): reads the raw body, verifies both
// signatures and the ±300 s window with the kit, skips redeliveries by idempotency key, answers 2xx fast.
//   WEBHOOK_SECRET=whsec_… PORT=8792 node shared/kit/examples/webhook-receiver.mjs
import http from "node:http";
import { MemoryIdempotencyStore, verifyWebhook } from "@open-oc/kit/webhooks";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error("set WEBHOOK_SECRET to the endpoint's whsec_… secret");
const seen = new MemoryIdempotencyStore();

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    const result = await verifyWebhook({ secret, headers: req.headers, body: Buffer.concat(chunks), store: seen });
    if (!result.ok) {
      console.log(`refused: ${result.reason} (${result.detail})`);
      // A duplicate was handled already: 200 stops the retries. Anything else: 401, the sender retries later.
      res.statusCode = result.reason === "duplicate" ? 200 : 401;
      return res.end();
    }
    console.log(
      `verified ${result.eventType} ${result.event.kind} ${result.event.id} (attempt ${result.attempt}, key ${result.idempotencyKey})`,
    );
    // … do the work here; mark the key only once it succeeded, so a failure is retried.
    await seen.add(result.idempotencyKey);
    res.statusCode = 200;
    res.end("ok");
  });
});
server.listen(Number(process.env.PORT ?? 8792), "127.0.0.1", () => {
  console.log(`webhook receiver on http://127.0.0.1:${server.address().port}/webhooks`);
});
