#!/usr/bin/env node
// `npm run deploy`: this repository to a running deployment on Cloudflare in one command (issue 28; README
// "Deploy"). Reads the deploy configuration, checks everything it can before creating anything, then provisions,
// migrates, builds and deploys through wrangler (scripts/deploy/run.mjs); `--dry-run` builds and measures the
// production bundles with no account (scripts/deploy/dry-run.mjs). Every failure is one line and a non-zero exit.
import { existsSync } from "node:fs";
import path from "node:path";
import { ENVIRONMENTS, loadDeployConfig } from "./deploy/config.mjs";
import { dryRun } from "./deploy/dry-run.mjs";
import { root } from "./deploy/plan.mjs";
import { deploy } from "./deploy/run.mjs";
import { CliError, parseCli, run } from "./lib/cli.mjs";

const USAGE = `Deploy the three workers to Cloudflare, or build and measure them.

  npm run deploy [-- --env production|staging] [--config deploy.config.json] [--no-smoke] [--replace NAME] [--yes]
      Provisions the D1 database and KV namespace when missing, generates the signing keys and the services'
      secrets on the first deploy (provider, mail and processor secrets come from the environment: the
      configuration says which), applies the migrations, builds the assets, deploys verify, auth and fleet with their
      routes and the cron, smoke-checks both hosts and prints their URLs. A second run changes nothing but code.
      Needs CLOUDFLARE_API_TOKEN (and CLOUDFLARE_ACCOUNT_ID), or a wrangler login (README "Before the first deploy").
      Stops before creating anything if a worker of the same name exists that this deploy did not make;
      --replace NAME (repeatable) replaces that worker all the same, --yes any such worker.

  npm run deploy -- --dry-run [--env production|staging] [--config …]
      Builds the assets and the production bundles (wrangler deploy --dry-run) and reports each one's gzip size against the
      Workers limits (3 MiB Free, 10 MiB Paid) and its startup CPU against the startup limit; no account needed.
      Without a deploy.config.json it measures deploy.config.example.json.`;

await run(async () => {
  const { values } = parseCli(USAGE, {
    options: {
      env: { type: "string", default: "production" },
      config: { type: "string" },
      "dry-run": { type: "boolean" },
      "no-smoke": { type: "boolean" },
      replace: { type: "string", multiple: true },
      yes: { type: "boolean" },
    },
  });
  const env = values.env;
  if (!ENVIRONMENTS.includes(env)) throw new CliError(`unknown environment ${env}`, "use production or staging", 2);
  const ownConfig = path.join(root, "deploy.config.json");
  const file =
    values.config ??
    (values["dry-run"] && !existsSync(ownConfig) ? path.join(root, "deploy.config.example.json") : ownConfig);
  let config;
  try {
    config = loadDeployConfig(file);
  } catch (err) {
    throw new CliError(err.message, undefined, 2);
  }
  if (!config.environments[env]) throw new CliError(`${path.basename(file)} has no environment ${env}`, undefined, 2);
  if (values["dry-run"]) {
    const { failures } = await dryRun({ config, env });
    if (failures.length > 0) throw new CliError(failures.join("; "));
    return;
  }
  const origins = await deploy({
    config,
    env,
    smoke: !values["no-smoke"],
    replace: values.replace ?? [],
    yes: values.yes ?? false,
  });
  console.log(`deployed ${env}: auth ${origins.auth} · fleet ${origins.fleet} · sign-in ${origins.auth}/signin`);
});
