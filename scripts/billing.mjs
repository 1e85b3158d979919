#!/usr/bin/env node
// README walk-through for billing, against the local processors of `npm run fakes` (or real ones): start a checkout,
// pay it on the local processor's checkout page (which sends the signed webhook to the fleet), and see the plan.
// Authenticates with the cookie saved by `npm run signin` (.state/cookie.txt); only a signed-in owner may buy.
import { existsSync, readFileSync } from "node:fs";
import { CliError, parseCli, reach, requestJson, run } from "./lib/cli.mjs";

const USAGE = `Billing against the local processors of npm run fakes (or real ones); needs a signed-in owner.

  npm run billing -- show --project proj_…
  npm run billing -- checkout --project proj_… [--card]      (lightning by default; prints the checkout URL)
  npm run billing -- pay <checkout URL>                       (local processors only: presses "Pay")
  npm run billing -- portal --project proj_…                  (the card customer portal's URL)

Common: --base http://localhost:8788, --jar .state/cookie.txt; --project defaults to $OC_PROJECT.`;

const { values, positionals: all } = parseCli(USAGE, {
  allowPositionals: true,
  options: {
    base: { type: "string", default: "http://localhost:8788" },
    jar: { type: "string", default: ".state/cookie.txt" },
    project: { type: "string", default: process.env.OC_PROJECT },
    card: { type: "boolean", default: false },
  },
});
const [command, ...positionals] = all;

async function call(method, path, body) {
  if (!existsSync(values.jar)) throw new CliError(`no session cookie at ${values.jar}`, "run npm run signin first");
  const headers = {
    cookie: `oc_session=${readFileSync(values.jar, "utf8").trim()}`,
    "sec-fetch-site": "same-origin",
    accept: "application/json",
  };
  return (await requestJson(values.base, method, path, { headers, body })).json;
}

const project = () => {
  if (!values.project)
    throw new CliError(`billing ${command} needs a project`, "pass --project proj_… or set OC_PROJECT", 2);
  return values.project;
};

await run(async () => {
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
      if (!url) throw new CliError("billing pay needs the checkout URL", "give the URL `checkout` printed", 2);
      // The local BTCPay page posts to <invoice>/pay, the local Stripe page to itself.
      const target = /\/i\/[\w-]+$/.test(url) ? `${url}/pay` : url;
      const res = await reach(target, { method: "POST", redirect: "manual" });
      console.log(res.status === 303 ? `paid; back to ${res.headers.get("location")}` : `answered ${res.status}`);
      break;
    }
    case "portal": {
      const { url } = await call("POST", "/api/billing/portal", { project_id: project() });
      console.log(url);
      break;
    }
    default:
      throw new CliError(
        command ? `unknown command ${command}` : "no command",
        "one of show, checkout, pay, portal (see --help)",
        2,
      );
  }
});
