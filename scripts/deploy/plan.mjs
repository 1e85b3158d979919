// What a deploy does, as pure functions of the configuration, the environment and what the account already has
// (issue 28): the names of the workers and their shared D1 database and KV namespace, each worker's wrangler
// configuration (the tracked wrangler.toml files, with this environment's names, ids, variables and routes laid
// over them, so local development and the deploy read one source), and which secrets are still to be set. Nothing
// here talks to Cloudflare; scripts/deploy/run.mjs carries the plan out through the wrangler adapter.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";

export const root = path.join(import.meta.dirname, "../..");

/** Dependency order: auth binds verify, the fleet binds auth. */
export const WORKERS = [
  { id: "verify", config: "workers/verify/wrangler.toml" },
  { id: "auth", config: "wrangler.toml" },
  { id: "fleet", config: "workers/fleet/wrangler.toml" },
];

/** Production keeps the base names; another environment suffixes them, as wrangler environments do. */
export const nameIn = (base, env) => (env === "production" ? base : `${base}-${env}`);

export function resourceNames(env) {
  return { database: nameIn("oc-db", env), registry: nameIn("oc-registry", env), namespace: nameIn("oc-kv", env) };
}

/** The extra registry shards of a configuration: binding, database name and place (shard 1 on). */
export function extraShards(config, env) {
  return (config.registry_shards ?? []).map((shard, i) => ({
    binding: `REGISTRY_${i + 1}`,
    name: nameIn(`oc-registry-${i + 1}`, env),
    place: shard.place,
  }));
}

/** `REGISTRY_SHARDS` for a worker whose first registry binding is `first`; none with one shard (the default). */
function shardsVar(config, env, first) {
  const extra = extraShards(config, env);
  return extra.length === 0 ? undefined : [first, ...extra.map((s) => `${s.binding}@${s.place}`)].join(", ");
}

/** The D1 bindings that hold the registry (the fleet's own database; the auth host's window on it). */
const REGISTRY_BINDINGS = { auth: ["REGISTRY_DB"], fleet: ["DB"] };

/** Whether `binding` of `worker` names the registry's own database under this configuration. */
function isRegistryBinding(config, worker, binding) {
  return config.registry_database === "own" && (REGISTRY_BINDINGS[worker] ?? []).includes(binding);
}

/** The two public origins of an environment: its custom domains, or its workers.dev names. */
export function originsOf(envConfig, env) {
  if (envConfig.auth_host && envConfig.fleet_host) {
    return { auth: `https://${envConfig.auth_host}`, fleet: `https://${envConfig.fleet_host}` };
  }
  const sub = envConfig.workers_dev_subdomain;
  return {
    auth: `https://${nameIn("auth", env)}.${sub}.workers.dev`,
    fleet: `https://${nameIn("fleet", env)}.${sub}.workers.dev`,
  };
}

/** Variables each worker reads (DECISIONS 27), from the configuration; secrets are not here. */
export function varsOf(worker, config, envConfig, origins) {
  const present = (entries) => Object.fromEntries(entries.filter(([, v]) => v !== undefined && v !== null));
  if (worker === "verify") {
    const verify = config.verify;
    return present([
      ["ESPLORA_URL", verify?.esplora_url],
      ["NOSTR_RELAYS", verify?.nostr_relays.join(",")],
      ["CONFIRMATIONS", verify ? String(verify.confirmations) : undefined],
    ]);
  }
  if (worker === "auth") {
    return present([
      ["AUTH_ORIGIN", origins.auth],
      ["FLEET_ORIGIN", origins.fleet],
      ["BITCOIN_NETWORK", config.bitcoin_network],
      ["COOKIE_DOMAIN", envConfig.cookie_domain],
      ["MAIL_API_URL", config.mail?.api_url],
      ["MAIL_FROM", config.mail?.from],
      ["CONTACT_TO", config.mail?.contact_to],
      ["OIDC_ISSUER", config.providers.oidc?.issuer],
      ["OIDC_LABEL", config.providers.oidc?.label],
      ["WEBAUTHN_USER_VERIFICATION", config.webauthn_user_verification],
      ["ACCOUNT_DELETION_GRACE_DAYS", config.account_deletion_grace_days?.toString()],
    ]);
  }
  return present([
    ["AUTH_ORIGIN", origins.auth],
    ["FLEET_ORIGIN", origins.fleet],
    ["BTCPAY_URL", config.billing.btcpay?.url],
    ["BTCPAY_STORE_ID", config.billing.btcpay?.store_id],
    ["LOG_WITNESSES", config.log_witnesses?.length ? JSON.stringify(config.log_witnesses) : undefined],
  ]);
}

const readToml = (file) => parse(readFileSync(path.join(root, file), "utf8"));

/** The assets folder a tracked TOML names (under `.build`), moved into `buildDir` when the deploy builds elsewhere. */
function assetsDirectory(dir, directory, buildDir) {
  const tracked = path.join(dir, directory);
  return buildDir ? path.join(buildDir, path.relative(path.join(root, ".build"), tracked)) : tracked;
}

/**
 * The wrangler configuration of `worker` for `env`, as JSON: the tracked TOML (paths made absolute, since the
 * generated file lives elsewhere), this environment's worker name, service bindings to this environment's workers,
 * its D1 and KV ids, variables, routes (a custom domain, or workers.dev) and Workers Logs. The assets are read
 * from `buildDir` when given (the built folders of .build, elsewhere).
 */
export function workerConfig(worker, { config, env, ids, buildDir }) {
  const spec = WORKERS.find((w) => w.id === worker);
  if (!spec) throw new Error(`no worker ${worker}`);
  const base = readToml(spec.config);
  const dir = path.join(root, path.dirname(spec.config));
  const envConfig = config.environments[env];
  const origins = originsOf(envConfig, env);
  const names = resourceNames(env);
  const out = {
    ...base,
    name: nameIn(base.name, env),
    main: path.join(dir, base.main),
    vars: varsOf(worker, config, envConfig, origins),
    // Workers Logs as the tracked config sets it (README "Logs"), on even if a fork's file drops the block.
    observability: { enabled: true, head_sampling_rate: 1, ...base.observability },
  };
  if (base.assets) out.assets = { ...base.assets, directory: assetsDirectory(dir, base.assets.directory, buildDir) };
  if (base.services) out.services = base.services.map((s) => ({ ...s, service: nameIn(s.service, env) }));
  if (base.d1_databases) {
    out.d1_databases = base.d1_databases.map((d) => {
      const registry = isRegistryBinding(config, worker, d.binding);
      return {
        ...d,
        database_name: registry ? names.registry : names.database,
        database_id: registry ? ids.registry : ids.database,
        migrations_dir: path.join(dir, d.migrations_dir),
      };
    });
  }
  // The extra registry shards: a binding each on auth (its counts) and the fleet, and the list that orders them.
  const extra = extraShards(config, env);
  const firstRegistry = { auth: "REGISTRY_DB", fleet: "DB" }[worker];
  if (firstRegistry && extra.length > 0) {
    out.d1_databases = [
      ...(out.d1_databases ?? []),
      ...extra.map((shard) => ({
        binding: shard.binding,
        database_name: shard.name,
        database_id: ids.shards?.[shard.name],
        migrations_dir: path.join(root, "d1-migrations"),
      })),
    ];
    out.vars = { ...out.vars, REGISTRY_SHARDS: shardsVar(config, env, firstRegistry) };
  }
  if (base.kv_namespaces) out.kv_namespaces = base.kv_namespaces.map((k) => ({ ...k, id: ids.namespace }));
  // verify has no public route: it is reached only through auth's service binding.
  const host = worker === "auth" ? envConfig.auth_host : worker === "fleet" ? envConfig.fleet_host : undefined;
  if (host) {
    out.routes = [{ pattern: host, custom_domain: true }];
    out.workers_dev = false;
  } else {
    out.workers_dev = worker !== "verify";
  }
  return out;
}

/** Secrets each worker needs: generated once by the deploy, or taken from the environment (requiredEnvSecrets). */
export const GENERATED_SECRETS = {
  verify: [],
  auth: ["AUTH_SIGNING_KEY", "ID_TOKEN_SIGNING_KEY", "EMAIL_CODE_KEY", "PUBLISHED_KEYS"],
  fleet: ["FLEET_SIGNING_KEY", "WEBHOOK_MASTER_KEY", "CRON_SECRET"],
};

const ENV_SECRETS_OF = {
  verify: [],
  auth: [
    "MAIL_API_KEY",
    "GITHUB_CLIENT_ID",
    "GITHUB_CLIENT_SECRET",
    "GOOGLE_CLIENT_ID",
    "GOOGLE_CLIENT_SECRET",
    "OIDC_CLIENT_ID",
    "OIDC_CLIENT_SECRET",
  ],
  fleet: ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "BTCPAY_API_KEY", "BTCPAY_WEBHOOK_SECRET"],
};

/**
 * The secrets to set on `worker` now: each one it needs (generated, or asked for by the configuration) that the
 * worker does not have yet. A secret already set is never replaced: rotation is `npm run keys`, a changed provider
 * secret `wrangler secret put`. The fleet's audit key and the auth host's PUBLISHED_KEYS go together (the public
 * half is published by auth before the fleet signs with it), so they are generated as a pair when the fleet lacks
 * its key, and PUBLISHED_KEYS is then set even if an earlier, interrupted run had set it.
 */
export function missingSecrets(worker, { needed, existing, fleetHasKey }) {
  const has = new Set(existing);
  const wanted = [...GENERATED_SECRETS[worker], ...ENV_SECRETS_OF[worker].filter((name) => needed.includes(name))];
  return wanted.filter((name) => {
    if (name === "PUBLISHED_KEYS") return !fleetHasKey || !has.has(name);
    return !has.has(name);
  });
}
