// A loopback server speaking the part of BTCPay Server's Greenfield API this project uses: POST and GET
// /api/v1/stores/<store>/invoices[/<id>] with `Authorization: token <key>`, a checkout page per invoice, and signed
// webhooks (`BTCPay-Sig: sha256=HMAC-SHA256(secret, body)`, signed here with node:crypto). Paying: GET /i/<id>
// shows the invoice; its button settles it, POSTs InvoiceReceivedPayment and InvoiceSettled to `webhookUrl`, then
// returns to the invoice's redirect URL. Failures, chosen by the key a call uses (parallel tests share no switch):
// `<apiKey>-fail-error` gets a 500, `<apiKey>-fail-no-link` an invoice without a checkout link. Admin (tests): POST /__admin/event {type, invoiceId, timestamp?} → {body, signature} without delivering it;
// POST /__admin/redeliver {body} → the same event as a redelivery (new deliveryId, same timestamp).
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import { listen, readBody, sendJson } from "./http-json.mjs";

export function startBtcpay({
  port = 0,
  host = "127.0.0.1",
  unref = false,
  apiKey = "btcpay-test-key",
  storeId = "store-test",
  webhookSecret = "btcpay-webhook-secret",
  webhookUrl,
} = {}) {
  const invoices = new Map();
  const state = { webhookUrl };
  const newId = () => randomBytes(11).toString("base64url");
  let base = "";

  const sign = (body) => `sha256=${createHmac("sha256", webhookSecret).update(body).digest("hex")}`;

  function event(type, invoiceId, { timestamp = Math.floor(Date.now() / 1000), original } = {}) {
    const deliveryId = newId();
    const invoice = invoices.get(invoiceId);
    const body = JSON.stringify({
      deliveryId,
      webhookId: "wh-local",
      originalDeliveryId: original ?? deliveryId,
      isRedelivery: original !== undefined,
      type,
      timestamp,
      storeId,
      invoiceId,
      metadata: invoice?.metadata ?? {},
      ...(type === "InvoiceSettled" && { manuallyMarked: false, overPaid: false }),
    });
    return { body, signature: sign(body) };
  }

  async function deliver(events) {
    if (!state.webhookUrl) return;
    for (const { body, signature } of events) {
      await fetch(state.webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "btcpay-sig": signature },
        body,
      }).catch(() => undefined);
    }
  }

  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url, "http://x");
    const send = (status, body) => sendJson(res, status, body);
    if (url.pathname === "/__admin/event" && req.method === "POST") {
      const { type, invoiceId, timestamp } = JSON.parse(raw);
      return send(200, event(type, invoiceId, { timestamp }));
    }
    if (url.pathname === "/__admin/redeliver" && req.method === "POST") {
      const original = JSON.parse(JSON.parse(raw).body);
      return send(
        200,
        event(original.type, original.invoiceId, { timestamp: original.timestamp, original: original.deliveryId }),
      );
    }
    const page = /^\/i\/([\w-]+)(\/pay)?$/.exec(url.pathname);
    if (page) {
      const invoice = invoices.get(page[1]);
      if (!invoice) return send(404, { code: "invoice-not-found", message: "Invoice not found" });
      // A settled invoice offers nothing more to pay, and paying it again sends no second settlement.
      const settled = invoice.status === "Settled";
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        const pay = `<form method="post" action="/i/${invoice.id}/pay"><button>Pay (simulated lightning)</button></form>`;
        return res.end(
          `<!doctype html><title>Local lightning checkout</title><h1>${settled ? "Paid" : "Pay"} ${invoice.amount} sats</h1>` +
            `<p>Status: ${invoice.status}</p>${settled ? "" : pay}`,
        );
      }
      if (!settled) {
        invoice.status = "Settled";
        await deliver([event("InvoiceReceivedPayment", invoice.id), event("InvoiceSettled", invoice.id)]);
      }
      const back = invoice.checkout?.redirectURL;
      res.writeHead(back ? 303 : 200, back ? { location: back } : { "content-type": "text/plain" });
      return res.end(back ? "" : "Paid.");
    }
    const api = /^\/api\/v1\/stores\/([^/]+)\/invoices(?:\/([\w-]+))?$/.exec(url.pathname);
    if (!api) return send(404, { code: "not-found", message: "Not found" });
    const fail = {
      [`token ${apiKey}`]: "none",
      [`token ${apiKey}-fail-error`]: "error",
      [`token ${apiKey}-fail-no-link`]: "no_link",
    }[req.headers.authorization ?? ""];
    if (!fail) {
      return send(401, {
        code: "unauthenticated",
        message: "Authentication is required for accessing this endpoint",
      });
    }
    if (decodeURIComponent(api[1]) !== storeId)
      return send(404, { code: "store-not-found", message: "Store not found" });
    if (api[2]) {
      const invoice = invoices.get(api[2]);
      return invoice ? send(200, invoice) : send(404, { code: "invoice-not-found", message: "Invoice not found" });
    }
    if (req.method !== "POST") return send(405, { code: "method-not-allowed", message: "Method not allowed" });
    if (fail === "error") return send(500, { code: "generic-error", message: "Lightning node unreachable" });
    const input = JSON.parse(raw || "{}");
    if (!/^\d+(\.\d+)?$/.test(String(input.amount ?? ""))) {
      return send(422, [{ path: "amount", message: "Amount should be a positive number" }]);
    }
    const now = Math.floor(Date.now() / 1000);
    const invoice = {
      id: newId(),
      storeId,
      amount: String(input.amount),
      currency: input.currency ?? "BTC",
      type: "Standard",
      status: "New",
      metadata: input.metadata ?? {},
      checkout: input.checkout ?? {},
      createdTime: now,
      expirationTime: now + 900,
      checkoutLink: "",
    };
    invoice.checkoutLink = `${base}/i/${invoice.id}`;
    invoices.set(invoice.id, invoice);
    send(200, fail === "no_link" ? { ...invoice, checkoutLink: null } : invoice);
  });
  return listen(server, { port, host, unref }).then((url) => {
    base = url;
    return {
      url: base,
      apiKey,
      storeId,
      webhookSecret,
      setWebhookUrl: (next) => (state.webhookUrl = next),
      close: () => new Promise((r) => server.close(r)),
    };
  });
}
