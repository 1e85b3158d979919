// `npm run deploy`: the plan (plan.mjs) carried out through wrangler, in an order that never leaves a half-made
// deployment a re-run cannot finish: everything is checked before anything is created (credentials, the
// configuration, the secrets it asks for); the database and namespace are found by name before being created; a
// secret is set only when the worker lacks it, uploaded with the worker's deployment (so a second run changes nothing
// but code); the audit key's public half is published by auth before the fleet gets the key; the workers deploy in
// dependency order; smoke checks last. A worker of the same name that this deploy did not make (ownership.mjs) stops
// it before anything is created, unless the operator names it to be replaced.
// Generated wrangler configurations live in .deploy/<env>/ (git-ignored), so no account-specific id is ever in a
// tracked file; generated secrets wait in a private temporary folder removed however the deploy ends
// (secret-dir.mjs).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildAssets } from "./assets.mjs";
import { requiredEnvSecrets } from "./config.mjs";
import { DEPLOY_TAG, foreignWorker, foreignWorkerMessage } from "./ownership.mjs";
import {
  extraShards,
  GENERATED_SECRETS,
  missingSecrets,
  nameIn,
  originsOf,
  resourceNames,
  root,
  WORKERS,
  workerConfig,
} from "./plan.mjs";
import { openSecretDir, sweepLeftovers } from "./secret-dir.mjs";
import { generateSecrets } from "./secrets.mjs";
import { smokeCheck } from "./smoke.mjs";
import { checkCredentials, jsonOf, stopWranglers, wrangler } from "./wrangler.mjs";

const ci = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
const run = (args, step) => wrangler(args, { cwd: root, env: ci, step });

/** The id of the D1 database named `name`, created when the account has none. */
async function ensureDatabase(name, say, place) {
  const find = async () =>
    jsonOf(await run(["d1", "list", "--json"], "listing the D1 databases")).find((d) => d.name === name)?.uuid;
  const found = await find();
  if (found) return found;
  say(`creating the D1 database ${name}${place ? ` in ${place}` : ""}`);
  // A place is D1's location hint, or for `eu` its jurisdiction (the data stays in the EU, not only starts there).
  const where = !place ? [] : place === "eu" ? ["--jurisdiction", "eu"] : ["--location", place];
  await run(["d1", "create", name, ...where], `creating the D1 database ${name}`);
  const made = await find();
  if (!made) throw new Error(`wrangler created ${name} but does not list it: run the deploy again`);
  return made;
}

/** The id of the KV namespace titled `title`, created when missing. */
async function ensureNamespace(title, say) {
  const find = async () =>
    jsonOf(await run(["kv", "namespace", "list"], "listing the KV namespaces")).find((n) => n.title === title)?.id;
  const found = await find();
  if (found) return found;
  say(`creating the KV namespace ${title}`);
  await run(["kv", "namespace", "create", title], `creating the KV namespace ${title}`);
  const made = await find();
  if (!made) throw new Error(`wrangler created ${title} but does not list it: run the deploy again`);
  return made;
}

/** Whether wrangler's failure says the worker does not exist (Cloudflare's code 10007). */
const noSuchWorker = (err) => /does not exist|not found|\[code: 10007\]/i.test(err.message);

/** The names of the secrets a worker has; none when the worker does not exist yet. */
async function secretNames(worker) {
  try {
    const listed = await run(["secret", "list", "--name", worker, "--format", "json"], `listing ${worker}'s secrets`);
    return jsonOf(listed).map((s) => s.name);
  } catch (err) {
    if (noSuchWorker(err)) return [];
    throw err;
  }
}

/** The versions of `worker` the account lists (ownership.mjs reads their tags); undefined when it has none. */
async function versionsOf(worker) {
  try {
    return jsonOf(await run(["versions", "list", "--name", worker, "--json"], `looking up the worker ${worker}`));
  } catch (err) {
    if (noSuchWorker(err)) return undefined;
    throw err;
  }
}

/**
 * Deploys `worker`'s code, with `secrets` (the ones it lacks) uploaded in the same deployment through a 0600 file
 * in the private folder `secretDir`, deleted afterwards whatever happens: a worker never runs a version without the
 * secrets it needs.
 */
async function deployWorker(secretDir, config, worker, secrets) {
  const args = ["deploy", "-c", config, "--tag", DEPLOY_TAG];
  const step = `deploying the worker ${worker}`;
  if (Object.keys(secrets).length === 0) return run(args, step);
  const file = secretDir.write(`secrets-${worker}.json`, JSON.stringify(secrets));
  try {
    await run([...args, "--secrets-file", file], step);
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * Deploys `env`; `replace` names workers this deploy may replace though it did not make them (`yes`: any).
 * Resolves with the two public origins.
 */
export async function deploy({ config, env, smoke = true, replace = [], yes = false, say = console.log }) {
  const envConfig = config.environments[env];
  if (!envConfig) throw new Error(`the deploy configuration has no environment ${env}`);
  // What an interrupted run left: its private folder, or the secret files older versions wrote into .deploy/.
  for (const left of sweepLeftovers({ deployRoot: path.join(root, ".deploy") })) say(`removed the leftover ${left}`);
  // Everything that can refuse is asked before anything is created.
  const needed = requiredEnvSecrets(config);
  const missingEnv = needed.filter(([name]) => !process.env[name]);
  if (missingEnv.length > 0) {
    const [name, by] = missingEnv[0];
    throw new Error(`${name} is not set in the environment (the configuration's ${by} needs it)`);
  }
  await checkCredentials(run);
  // A same-named worker this deploy did not make would be replaced silently by wrangler: refuse it, unless told.
  const found = [];
  for (const { id } of WORKERS) found.push({ name: nameIn(id, env), versions: await versionsOf(nameIn(id, env)) });
  const foreign = foreignWorker(found, { replace, yes });
  if (foreign) throw new Error(foreignWorkerMessage(foreign));

  const names = resourceNames(env);
  const ownRegistry = config.registry_database === "own";
  const ids = {
    database: await ensureDatabase(names.database, say),
    ...(ownRegistry && { registry: await ensureDatabase(names.registry, say) }),
    namespace: await ensureNamespace(names.namespace, say),
    shards: {},
  };
  for (const shard of extraShards(config, env))
    ids.shards[shard.name] = await ensureDatabase(shard.name, say, shard.place);
  const dir = path.join(root, ".deploy", env);
  mkdirSync(dir, { recursive: true });
  const configs = {};
  for (const { id } of WORKERS) {
    configs[id] = path.join(dir, `${id}.json`);
    writeFileSync(configs[id], `${JSON.stringify(workerConfig(id, { config, env, ids }), null, 2)}\n`);
  }

  say("building the assets");
  buildAssets();
  // Every database gets every migration (a table one side never uses stays empty), so they can never disagree on
  // the schema; auth's configuration names them all (its DB, its REGISTRY_DB and each extra shard's REGISTRY_N).
  const registries = [...(ownRegistry ? [names.registry] : []), ...extraShards(config, env).map((s) => s.name)];
  for (const name of [names.database, ...registries]) {
    say(`applying the migrations to ${name}`);
    await run(["d1", "migrations", "apply", name, "--remote", "-c", configs.auth], `migrating the database ${name}`);
  }

  // The workers in dependency order, each with the secrets it lacks; the audit key's pair is decided before either
  // worker gets its half, and auth (which publishes the public half) deploys before the fleet (which signs).
  const existing = {};
  for (const { id } of WORKERS) existing[id] = await secretNames(nameIn(id, env));
  const fleetHasKey = existing.fleet.includes("FLEET_SIGNING_KEY");
  const fromEnv = Object.fromEntries(needed.map(([name]) => [name, process.env[name]]));
  const generated = generateSecrets([...GENERATED_SECRETS.auth, ...GENERATED_SECRETS.fleet]);
  const secretDir = openSecretDir({ onSignal: stopWranglers });
  try {
    for (const { id } of WORKERS) {
      const missing = missingSecrets(id, { needed: needed.map(([n]) => n), existing: existing[id], fleetHasKey });
      const secrets = Object.fromEntries(missing.map((n) => [n, generated[n] ?? fromEnv[n]]));
      say(`deploying ${nameIn(id, env)}${missing.length ? ` with its secrets ${missing.join(", ")}` : ""}`);
      await deployWorker(secretDir, configs[id], nameIn(id, env), secrets);
    }
  } finally {
    secretDir.close();
  }
  const origins = originsOf(envConfig, env);
  if (smoke) await smokeCheck(origins, { say });
  return origins;
}
