#!/usr/bin/env node
// README walk-through for billing, against the local processors of `npm run fakes` (or real ones): start a checkout,
// pay it on the local processor's checkout page (which sends the signed webhook to the fleet), and see the plan.
// Authenticates with the cookie saved by `npm run signin` (.state/cookie.txt); only a signed-in owner may buy.
//
//   npm run billing -- show --project proj_…
//   npm run billing -- checkout --project proj_… [--card]      (lightning by default; prints the checkout URL)
//   npm run billing -- pay <checkout URL>                       (local processors only: presses "Pay")
//   npm run billing -- portal --project proj_…                  (the card customer portal's URL)
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const [command, ...rest] = process.argv.slice(2);
const { values, positionals } = parseArgs({
  args: rest,
  allowPositionals: true,
  options: {
    base: { type: "string", default: "http://localhost:8788" },
    jar: { type: "string", default: ".state/cookie.txt" },
    project: { type: "string" },
    card: { type: "boolean", default: false },
  },
});

async function call(method, path, body) {
  if (!existsSync(values.jar)) throw new Error(`no session cookie at ${values.jar}: run npm run signin first`);
  const res = await fetch(`${values.base}${path}`, {
    method,
    headers: {
      cookie: `oc_session=${readFileSync(values.jar, "utf8").trim()}`,
      "sec-fetch-site": "same-origin",
      accept: "application/json",
      ...(body && { "content-type": "application/json" }),
    },
    body: body && JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok)
    throw new Error(`${method} ${path}: ${res.status} ${json.reason}${json.detail ? ` (${json.detail})` : ""}`);
  return json;
}

const project = () =>
  values.project ??
  (() => {
    throw new Error("--project proj_… is required");
  })();

switch (command) {
  case "show": {
    const { billing } = await call("GET", `/api/billing?project_id=${project()}`);
    console.log(JSON.stringify(billing, null, 2));
    break;
  }
  case "checkout": {
    const route = values.card ? "/api/checkout/card" : "/api/checkout/lightning";
    const answer = await call("POST", route, { project_id: project(), tier: "pro" });
    console.log(answer.amount_sats ? `Pay ${answer.amount_sats} sats at:` : "Pay at:");
    console.log(answer.url);
    break;
  }
  case "pay": {
    const url = positionals[0];
    if (!url) throw new Error("give the checkout URL printed by `checkout`");
    // The local BTCPay page posts to <invoice>/pay, the local Stripe page to itself.
    const target = /\/i\/[\w-]+$/.test(url) ? `${url}/pay` : url;
    const res = await fetch(target, { method: "POST", redirect: "manual" });
    console.log(res.status === 303 ? `paid; back to ${res.headers.get("location")}` : `answered ${res.status}`);
    break;
  }
  case "portal": {
    const { url } = await call("POST", "/api/billing/portal", { project_id: project() });
    console.log(url);
    break;
  }
  default:
    console.error("usage: npm run billing -- show|checkout|pay|portal (see the header of scripts/billing.mjs)");
    process.exit(2);
}
