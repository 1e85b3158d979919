#!/usr/bin/env node
// README walk-through for the fleet registry: create a project and an API token, build and sign OC Agent envelopes
// with WIF keys (delegation, action, revocation; built by the kit, as `oc` does), register them, and download the
// signed audit bundle. For every envelope kind and offline bundle checks, see the `oc` CLI (docs/kit.md).
// Authenticates with the cookie saved by `npm run signin` (.state/cookie.txt) or with --token ock_….
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadKit } from "./kit/load.mjs";
import { CliError, parseCli, reach, requestJson, run } from "./lib/cli.mjs";

const USAGE = `The fleet registry from the command line (cookie from npm run signin, or --token ock_…).

  npm run fleet -- project --name "My fleet"
  npm run fleet -- token --project proj_… --name ci [--access owner|register|read]
  npm run fleet -- delegate --project proj_… --wif <principal WIF> --agent-wif <agent WIF> [--scope "…"] [--hours 24]
  npm run fleet -- act --project proj_… --delegation <id> --agent-wif <agent WIF> [--scope "…"]
  npm run fleet -- revoke --project proj_… --delegation <id> --wif <principal WIF> [--reason "…"]
  npm run fleet -- export --project proj_… [--format ndjson|json|csv] [--out .oc/<project>.ndjson]
  npm run fleet -- hook --project proj_… --url http://127.0.0.1:8790/ok/demo [--events delegation.registered,…]
  npm run fleet -- deliveries --project proj_…
  npm run fleet -- reconcile            (the cron reconciler, with CRON_SECRET from .dev.vars)

Common: --base http://localhost:8788, --jar .state/cookie.txt, --token ock_…; --project defaults to $OC_PROJECT.`;

const COMMANDS = ["project", "token", "delegate", "act", "revoke", "export", "hook", "deliveries", "reconcile"];
const { values, positionals } = parseCli(USAGE, {
  allowPositionals: true,
  options: {
    base: { type: "string", default: "http://localhost:8788" },
    jar: { type: "string", default: ".state/cookie.txt" },
    token: { type: "string" },
    name: { type: "string" },
    project: { type: "string", default: process.env.OC_PROJECT },
    wif: { type: "string" },
    "agent-wif": { type: "string" },
    type: { type: "string", default: "p2wpkh" },
    scope: { type: "string", default: "stamp:sign(mime=text/markdown)" },
    access: { type: "string" },
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
const [command] = positionals;

const iso = (ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

async function call(method, path, body) {
  const headers = { "sec-fetch-site": "same-origin" };
  if (values.token) headers.authorization = `Bearer ${values.token}`;
  else if (existsSync(values.jar)) headers.cookie = `oc_session=${readFileSync(values.jar, "utf8").trim()}`;
  const { json, text } = await requestJson(values.base, method, path, { headers, body });
  return path.startsWith("/api/audit/export") ? text : json;
}

/** The project every command but `project` and `reconcile` needs: never sent as "undefined". */
function project() {
  if (!values.project)
    throw new CliError(`fleet ${command} needs a project`, "pass --project proj_… or set OC_PROJECT", 2);
  return values.project;
}

if (!COMMANDS.includes(command)) {
  console.error(
    `error: ${command ? `unknown command ${command}` : "no command"}; one of ${COMMANDS.join(", ")} (see --help)`,
  );
  process.exit(2);
}

// Envelopes are built and signed by the integrator kit (shared/kit, the `oc` CLI's library): one implementation.
const kit = ["delegate", "act", "revoke"].includes(command) ? await loadKit() : undefined;
const signerFor = (wif) => kit.keyFromWif(wif, values.type);

await run(async () => {
  switch (command) {
    case "project": {
      const { project } = await call("POST", "/api/projects", { name: values.name ?? "My fleet" });
      console.log(`project ${project.id} (owner ${project.owner_address})`);
      break;
    }
    case "token": {
      const { token, secret } = await call("POST", "/api/tokens", {
        project_id: project(),
        name: values.name ?? "cli",
        ...(values.access && { scope: values.access }),
      });
      console.log(`token ${token.id}; secret (shown once): ${secret}`);
      break;
    }
    case "delegate": {
      const agent = signerFor(values["agent-wif"]);
      const built = await kit.delegation(
        {
          agent: agent.address,
          scopes: [values.scope],
          expires_at: iso(Date.now() + Number(values.hours) * 3_600_000),
        },
        signerFor(values.wif),
      );
      const { delegation } = await call("POST", "/api/delegations", {
        project_id: project(),
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
      const { action } = await call("POST", "/api/actions", { project_id: project(), envelope: built.envelope });
      console.log(`action ${action.id} under ${action.delegation_id}`);
      break;
    }
    case "revoke": {
      const built = await kit.revocation(
        { delegation_id: values.delegation, reason: values.reason },
        signerFor(values.wif),
      );
      const { revocation } = await call("POST", "/api/revocations", {
        project_id: project(),
        envelope: built.envelope,
      });
      console.log(`revocation ${revocation.id}: ${revocation.delegation_id} is revoked`);
      break;
    }
    case "export": {
      const text = await call("GET", `/api/audit/export?project_id=${project()}&format=${values.format}`);
      // Walk-through outputs go to one git-ignored folder, never loose in the repository.
      const out = values.out ?? path.join(".oc", `${project()}.${values.format}`);
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, text);
      console.log(`bundle saved to ${out}; check it offline: npm run verify-bundle -- ${out}`);
      break;
    }
    case "hook": {
      const { endpoint, secret } = await call("POST", "/api/webhooks/endpoints", {
        project_id: project(),
        url: values.url,
        event_types: values.events.split(","),
      });
      console.log(`endpoint ${endpoint.id} → ${endpoint.url}\nsigning secret (shown once): ${secret}`);
      break;
    }
    case "deliveries": {
      const { deliveries } = await call("GET", `/api/webhooks/deliveries?project_id=${project()}`);
      for (const d of deliveries) {
        console.log(
          `${d.id} ${d.event_type} ${d.state} attempts=${d.attempt_count} status=${d.status_code ?? "-"} next=${d.next_retry_at ?? "-"} ${d.error_message ?? ""}`,
        );
      }
      break;
    }
    case "reconcile": {
      const secret = /^CRON_SECRET='?([^'\n]*)'?$/m.exec(readFileSync(".dev.vars", "utf8"))?.[1];
      if (!secret) throw new CliError("no CRON_SECRET in .dev.vars", "run npm start once to create it");
      const res = await reach(`${values.base}/api/cron/reconcile`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}` },
      });
      console.log(`reconcile → ${res.status}`, await res.json());
      break;
    }
  }
});
