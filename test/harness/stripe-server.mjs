// A loopback server speaking the part of Stripe's API this project uses: form-encoded POST /v1/checkout/sessions and
// /v1/billing_portal/sessions with a Bearer secret key (Idempotency-Key honoured), and Stripe-signed events
// (`Stripe-Signature: t=…,v1=HMAC-SHA256("{t}.{body}")`, signed here with node:crypto, independent of the worker).
// Paying: GET /c/pay/<session> shows a page whose button completes the checkout and POSTs the events to
// `webhookUrl`, then returns to the success URL. The customer portal: GET /p/session/<id> (the portal session's
// `url`) is a stand-in page that says so and links back to the return_url the session was created with. Failures,
// chosen by the key a call uses (so parallel tests never share a switch): `<secretKey>_fail_error` gets a Stripe
// error, `<secretKey>_fail_no_url` an answer without a URL.
// Admin (tests): POST /__admin/complete/<session> → {events: [{type, body, signature}]} without delivering them;
// POST /__admin/event {type, object, created?, t?} → one signed event; POST /__admin/sign {body, t?} → any body
// signed; GET /__admin/requests.
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import { listen, readBody, sendJson } from "./http-json.mjs";

export function startStripe({
  port = 0,
  host = "127.0.0.1",
  unref = false,
  secretKey = "sk_test_local",
  webhookSecret = "whsec_test_local",
  webhookUrl,
} = {}) {
  const sessions = new Map();
  /** Customer portal sessions by the id in their URL: the customer and the return_url they were created with. */
  const portals = new Map();
  const idempotent = new Map();
  const customers = new Set();
  const requests = [];
  const state = { webhookUrl };
  const id = (prefix) => `${prefix}_test_${randomBytes(8).toString("hex")}`;
  let base = "";

  function signEvent(
    type,
    object,
    { created = Math.floor(Date.now() / 1000), t = Math.floor(Date.now() / 1000) } = {},
  ) {
    const body = JSON.stringify({
      id: id("evt"),
      object: "event",
      api_version: "2025-09-30",
      created,
      type,
      data: { object },
    });
    const v1 = createHmac("sha256", webhookSecret).update(`${t}.${body}`).digest("hex");
    return { type, body, signature: `t=${t},v1=${v1}` };
  }

  /** The events a real checkout completion produces: the session completed and the first invoice paid. */
  function complete(session) {
    if (!session.customer) {
      session.customer = session.form.get("customer") || id("cus");
      customers.add(session.customer);
    }
    session.subscription ??= id("sub");
    session.status = "complete";
    const metadata = {
      project_id: session.form.get("subscription_data[metadata][project_id]"),
      payment_id: session.form.get("subscription_data[metadata][payment_id]"),
      tier: session.form.get("subscription_data[metadata][tier]"),
    };
    const now = Math.floor(Date.now() / 1000);
    const periodEnd = now + 30 * 86400;
    return [
      signEvent("checkout.session.completed", {
        id: session.id,
        object: "checkout.session",
        mode: "subscription",
        payment_status: "paid",
        status: "complete",
        customer: session.customer,
        subscription: session.subscription,
        client_reference_id: session.form.get("client_reference_id"),
        metadata,
      }),
      signEvent("invoice.paid", {
        id: id("in"),
        object: "invoice",
        customer: session.customer,
        billing_reason: "subscription_create",
        amount_paid: Number(session.form.get("line_items[0][price_data][unit_amount]")),
        currency: session.form.get("line_items[0][price_data][currency]"),
        parent: {
          type: "subscription_details",
          subscription_details: { subscription: session.subscription, metadata },
        },
        lines: { data: [{ period: { start: now, end: periodEnd } }] },
      }),
    ];
  }

  async function deliver(events) {
    if (!state.webhookUrl) return;
    for (const event of events) {
      await fetch(state.webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": event.signature },
        body: event.body,
      }).catch(() => undefined);
    }
  }

  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url, "http://x");
    const send = (status, body) => sendJson(res, status, body);
    const stripeError = (status, message) => send(status, { error: { type: "invalid_request_error", message } });
    if (url.pathname === "/__admin/requests") return send(200, requests);
    const completeMatch = /^\/__admin\/complete\/([\w]+)$/.exec(url.pathname);
    if (completeMatch && req.method === "POST") {
      const session = sessions.get(completeMatch[1]);
      if (!session) return stripeError(404, "No such checkout session");
      return send(200, { events: complete(session) });
    }
    if (url.pathname === "/__admin/sign" && req.method === "POST") {
      const { body, t = Math.floor(Date.now() / 1000) } = JSON.parse(raw);
      const v1 = createHmac("sha256", webhookSecret).update(`${t}.${body}`).digest("hex");
      return send(200, { body, signature: `t=${t},v1=${v1}` });
    }
    if (url.pathname === "/__admin/event" && req.method === "POST") {
      const { type, object, created, t } = JSON.parse(raw);
      return send(200, signEvent(type, object, { created, t }));
    }
    const payMatch = /^\/c\/pay\/([\w]+)$/.exec(url.pathname);
    if (payMatch) {
      const session = sessions.get(payMatch[1]);
      if (!session) return stripeError(404, "No such checkout session");
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        const amount = Number(session.form.get("line_items[0][price_data][unit_amount]")) / 100;
        return res.end(
          `<!doctype html><title>Local card checkout</title><h1>Pay $${amount.toFixed(2)} a month</h1>` +
            `<form method="post"><button>Pay with test card</button></form>`,
        );
      }
      await deliver(complete(session));
      res.writeHead(303, { location: session.form.get("success_url") });
      return res.end();
    }
    const portalMatch = /^\/p\/session\/([\w]+)$/.exec(url.pathname);
    if (portalMatch && req.method === "GET") {
      const portal = portals.get(portalMatch[1]);
      if (!portal) return stripeError(404, "No such customer portal session");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(portalPage(portal));
    }
    if (req.method !== "POST" || !url.pathname.startsWith("/v1/")) return stripeError(404, "Unrecognized request URL");
    const fail = {
      [`Bearer ${secretKey}`]: "none",
      [`Bearer ${secretKey}_fail_error`]: "error",
      [`Bearer ${secretKey}_fail_no_url`]: "no_url",
    }[req.headers.authorization ?? ""];
    if (!fail) return stripeError(401, "Invalid API Key provided");
    const form = new URLSearchParams(raw);
    requests.push({
      path: url.pathname,
      form: Object.fromEntries(form),
      idempotencyKey: req.headers["idempotency-key"],
    });
    if (fail === "error") return stripeError(400, "Your account cannot currently make live charges.");
    const key = req.headers["idempotency-key"];
    if (key && idempotent.has(key)) return send(200, idempotent.get(key));
    let answer;
    if (url.pathname === "/v1/checkout/sessions") {
      for (const field of ["mode", "success_url", "line_items[0][price_data][unit_amount]"]) {
        if (!form.get(field)) return stripeError(400, `Missing required param: ${field}.`);
      }
      const session = { id: id("cs"), form, customer: form.get("customer") || null, subscription: null };
      sessions.set(session.id, session);
      answer = {
        id: session.id,
        object: "checkout.session",
        mode: form.get("mode"),
        url: `${base}/c/pay/${session.id}`,
      };
    } else if (url.pathname === "/v1/billing_portal/sessions") {
      const customer = form.get("customer");
      if (!customers.has(customer)) return stripeError(400, `No such customer: '${customer}'`);
      const portal = { id: id("ps"), customer, returnUrl: form.get("return_url") };
      portals.set(portal.id, portal);
      answer = {
        id: id("bps"),
        object: "billing_portal.session",
        customer,
        return_url: portal.returnUrl,
        url: `${base}/p/session/${portal.id}`,
      };
    } else {
      return stripeError(404, "Unrecognized request URL");
    }
    if (fail === "no_url") answer.url = null;
    if (key) idempotent.set(key, answer);
    send(200, answer);
  });
  return listen(server, { port, host, unref }).then((url) => {
    base = url;
    return {
      url: base,
      secretKey,
      webhookSecret,
      setWebhookUrl: (next) => (state.webhookUrl = next),
      close: () => new Promise((r) => server.close(r)),
    };
  });
}

const escapeHtml = (text) =>
  String(text).replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch],
  );

/** The portal's stand-in: nothing to manage locally, and the way back the session was created with. */
function portalPage({ customer, returnUrl }) {
  const back = returnUrl
    ? `<p><a id="return" href="${escapeHtml(returnUrl)}">Back to the site that opened the portal</a></p>`
    : "<p>The session was created without a return_url.</p>";
  return (
    `<!doctype html><meta charset="utf-8"><title>Local card processor: customer portal</title>` +
    `<h1>Customer portal</h1>` +
    `<p>This is the local card processor's stand-in for the customer portal (customer ${escapeHtml(customer)}): ` +
    `payment methods and invoices are not managed here.</p>${back}`
  );
}
