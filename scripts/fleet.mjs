#!/usr/bin/env node
// README walk-through for the fleet registry: create a project and an API token, build and sign OC Agent envelopes
// with WIF keys (delegation, action, revocation; built by the kit, as `oc` does), register them, and download the
// signed audit bundle. For every envelope kind and offline bundle checks, see the `oc` CLI (docs/kit.md).
// Authenticates with the cookie saved by `npm run signin` (.state/cookie.txt) or with --token ock_….
//
//   npm run fleet -- project --name "My fleet"
//   npm run fleet -- token --project proj_… --name ci
//   npm run fleet -- delegate --project proj_… --wif <principal WIF> --agent-wif <agent WIF> [--scope "…"] [--hours 24]
//   npm run fleet -- act --project proj_… --delegation <id> --agent-wif <agent WIF> [--scope "…"]
//   npm run fleet -- revoke --project proj_… --delegation <id> --wif <principal WIF> [--reason "…"]
//   npm run fleet -- export --project proj_… [--format ndjson|json|csv] [--out bundle.ndjson]
//   npm run fleet -- hook --project proj_… --url http://127.0.0.1:8790/ok/demo [--events delegation.registered,…]
//   npm run fleet -- deliveries --project proj_…
//   npm run fleet -- reconcile            (the cron reconciler, with CRON_SECRET from .dev.vars)
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadKit } from "./kit/load.mjs";

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    base: { type: "string", default: "http://localhost:8788" },
    jar: { type: "string", default: ".state/cookie.txt" },
    token: { type: "string" },
    name: { type: "string" },
    project: { type: "string" },
    wif: { type: "string" },
    "agent-wif": { type: "string" },
    type: { type: "string", default: "p2wpkh" },
    scope: { type: "string", default: "stamp:sign(mime=text/markdown)" },
    hours: { type: "string", default: "24" },
    delegation: { type: "string" },
    reason: { type: "string", default: "" },
    format: { type: "string", default: "ndjson" },
    out: { type: "string" },
    url: { type: "string" },
    events: {
      type: "string",
      default:
        "delegation.registered,action.registered,revocation.registered,subdelegation.registered,pledge.registered,pledge.outcome,pledge.abandoned",
    },
  },
});

const iso = (ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

async function call(method, path, body) {
  const headers = { "sec-fetch-site": "same-origin" };
  if (values.token) headers.authorization = `Bearer ${values.token}`;
  else if (existsSync(values.jar)) headers.cookie = `oc_session=${readFileSync(values.jar, "utf8").trim()}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${values.base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (path.startsWith("/api/audit/export") && res.ok) return res.text();
  const json = await res.json();
  if (!res.ok) {
    console.error(`${method} ${path} → ${res.status}`, json);
    process.exit(1);
  }
  return json;
}

// Envelopes are built and signed by the integrator kit (shared/kit, the `oc` CLI's library): one implementation.
const kit = ["delegate", "act", "revoke"].includes(command) ? await loadKit() : undefined;
const signerFor = (wif) => kit.keyFromWif(wif, values.type);

switch (command) {
  case "project": {
    const { project } = await call("POST", "/api/projects", { name: values.name ?? "My fleet" });
    console.log(`project ${project.id} (owner ${project.owner_address})`);
    break;
  }
  case "token": {
    const { token, secret } = await call("POST", "/api/tokens", {
      project_id: values.project,
      name: values.name ?? "cli",
    });
    console.log(`token ${token.id}; secret (shown once): ${secret}`);
    break;
  }
  case "delegate": {
    const agent = signerFor(values["agent-wif"]);
    const built = await kit.delegation(
      { agent: agent.address, scopes: [values.scope], expires_at: iso(Date.now() + Number(values.hours) * 3_600_000) },
      signerFor(values.wif),
    );
    const { delegation } = await call("POST", "/api/delegations", {
      project_id: values.project,
      envelope: built.envelope,
    });
    console.log(
      `delegation ${delegation.id}: ${delegation.principal_address} → ${delegation.agent_address} [${delegation.scopes}]`,
    );
    break;
  }
  case "act": {
    const agent = signerFor(values["agent-wif"]);
    const built = await kit.action(
      {
        content: `action by ${agent.address} at ${new Date().toISOString()}`,
        content_mime: "text/markdown",
        delegation_id: values.delegation,
        scope_exercised: values.scope,
      },
      agent,
    );
    const { action } = await call("POST", "/api/actions", { project_id: values.project, envelope: built.envelope });
    console.log(`action ${action.id} under ${action.delegation_id}`);
    break;
  }
  case "revoke": {
    const built = await kit.revocation(
      { delegation_id: values.delegation, reason: values.reason },
      signerFor(values.wif),
    );
    const { revocation } = await call("POST", "/api/revocations", {
      project_id: values.project,
      envelope: built.envelope,
    });
    console.log(`revocation ${revocation.id}: ${revocation.delegation_id} is revoked`);
    break;
  }
  case "export": {
    const text = await call("GET", `/api/audit/export?project_id=${values.project}&format=${values.format}`);
    const out = values.out ?? `${values.project}.${values.format}`;
    writeFileSync(out, text);
    console.log(`bundle saved to ${out}; check it offline: npm run verify-bundle -- ${out}`);
    break;
  }
  case "hook": {
    const { endpoint, secret } = await call("POST", "/api/webhooks/endpoints", {
      project_id: values.project,
      url: values.url,
      event_types: values.events.split(","),
    });
    console.log(`endpoint ${endpoint.id} → ${endpoint.url}\nsigning secret (shown once): ${secret}`);
    break;
  }
  case "deliveries": {
    const { deliveries } = await call("GET", `/api/webhooks/deliveries?project_id=${values.project}`);
    for (const d of deliveries) {
      console.log(
        `${d.id} ${d.event_type} ${d.state} attempts=${d.attempt_count} status=${d.status_code ?? "-"} next=${d.next_retry_at ?? "-"} ${d.error_message ?? ""}`,
      );
    }
    break;
  }
  case "reconcile": {
    const secret = /^CRON_SECRET='?([^'\n]*)'?$/m.exec(readFileSync(".dev.vars", "utf8"))?.[1];
    const res = await fetch(`${values.base}/api/cron/reconcile`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}` },
    });
    console.log(`reconcile → ${res.status}`, await res.json());
    break;
  }
  default:
    console.error(
      "commands: project, token, delegate, act, revoke, export, hook, deliveries, reconcile (see scripts/fleet.mjs)",
    );
    process.exit(2);
}
