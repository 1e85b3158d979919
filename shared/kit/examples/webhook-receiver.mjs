#!/usr/bin/env node
// A webhook subscriber in plain Node (docs/quickstart/webhook-subscriber.md): reads the raw body, and handleWebhook
// verifies the Standard Webhooks signature and the ±300 s window, skips a key already processed, runs the handler
// and marks the key once it succeeded; the answer is sent as it says.
//   WEBHOOK_SECRET=whsec_… PORT=8792 node shared/kit/examples/webhook-receiver.mjs
import http from "node:http";
import { handleWebhook, MemoryIdempotencyStore } from "@open-oc/kit/webhooks";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error("set WEBHOOK_SECRET to the endpoint's whsec_… secret");
const store = new MemoryIdempotencyStore();

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", async () => {
    const body = Buffer.concat(chunks);
    const answer = await handleWebhook({ secret, headers: req.headers, body, store }, (delivery) => {
      // … do the work here; if it throws, the key is not marked and the sender's retry runs it again.
      console.log(`handled ${delivery.eventType} ${delivery.event.id} (attempt ${delivery.attempt})`);
    });
    if (!answer.body.ok) console.log(`refused: ${answer.body.reason}`);
    res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
  });
});
server.listen(Number(process.env.PORT ?? 8792), "127.0.0.1", () => {
  console.log(`webhook receiver on http://127.0.0.1:${server.address().port}/webhooks`);
});
