// The deploy configuration (issue 28): one small JSON file naming, per environment (staging, production), where
// the two hosts live (custom domains, or workers.dev), and the optional mail API, sign-in providers and payment
// processors. No secret is ever in it: provider and processor secrets come from the environment at deploy time,
// the keys and the services' own secrets are generated on the first deploy. Validated with zod; every problem is
// one line that names the setting.
import { readFileSync } from "node:fs";
import { z } from "zod";

export const ENVIRONMENTS = ["staging", "production"];

const Host = z
  .string()
  .regex(
    /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    "a lowercase host name, e.g. auth.example.com",
  );

const Environment = z
  .strictObject({
    /** Custom domains: the auth host ({base_url}) and the fleet host ({fleet_url}). */
    auth_host: Host.optional(),
    fleet_host: Host.optional(),
    /** The parent domain the session cookie is shared on (both hosts must be under it), e.g. `.example.com`. */
    cookie_domain: z
      .string()
      .regex(/^\.[a-z0-9.-]+$/, "a parent domain with its leading dot")
      .optional(),
    /** Or workers.dev: the account's workers.dev subdomain (the dashboard's Workers page shows it). */
    workers_dev_subdomain: z
      .string()
      .regex(/^[a-z0-9-]+$/)
      .optional(),
  })
  .superRefine((env, ctx) => {
    const custom = env.auth_host !== undefined || env.fleet_host !== undefined;
    if (custom && (env.auth_host === undefined || env.fleet_host === undefined)) {
      ctx.addIssue({ code: "custom", message: "give both auth_host and fleet_host, or neither" });
    }
    if (!custom && env.workers_dev_subdomain === undefined) {
      ctx.addIssue({ code: "custom", message: "give auth_host and fleet_host, or workers_dev_subdomain" });
    }
    if (env.cookie_domain && custom) {
      for (const host of [env.auth_host, env.fleet_host]) {
        if (host && !`.${host}`.endsWith(env.cookie_domain)) {
          ctx.addIssue({ code: "custom", message: `cookie_domain ${env.cookie_domain} does not cover ${host}` });
        }
      }
    }
  });

export const DeployConfig = z.strictObject({
  environments: z
    .partialRecord(z.enum(["staging", "production"]), Environment)
    .refine((envs) => Object.keys(envs).length > 0, "name at least one of staging, production"),
  bitcoin_network: z.enum(["mainnet", "testnet", "regtest"]).default("mainnet"),
  verify: z
    .strictObject({
      esplora_url: z.url().default("https://mempool.space/api"),
      nostr_relays: z.array(z.string().regex(/^wss:\/\//, "a wss:// relay")).min(1),
      confirmations: z.number().int().min(1).max(100).default(6),
    })
    .optional(),
  mail: z
    .strictObject({
      api_url: z.url(),
      from: z.string().min(3),
      contact_to: z.email().optional(),
    })
    .optional(),
  providers: z
    .strictObject({
      github: z.boolean().optional(),
      google: z.boolean().optional(),
      oidc: z.strictObject({ issuer: z.url(), label: z.string().min(1).max(40) }).optional(),
    })
    .default({}),
  billing: z
    .strictObject({
      stripe: z.boolean().optional(),
      btcpay: z.strictObject({ url: z.url(), store_id: z.string().min(1) }).optional(),
    })
    .default({}),
  webauthn_user_verification: z.enum(["preferred", "required"]).default("preferred"),
  /** Days between "Delete my account" and the erasure by the auth worker's cron (issue 46). */
  account_deletion_grace_days: z.int().min(0).max(90).default(7),
  /**
   * `own`: the registry (projects and everything under them) in a database of its own, `oc-registry`, apart from the
   * auth host's sign-in state in `oc-db`, so a busy project's registrations never queue behind sign-ins (issue 31).
   * `shared` (the default, and every deployment made before it): one database for both. Moving a shared deployment's
   * registry is a restore of each project's bundle into the new database (docs/recovery.md), not a setting.
   */
  registry_database: z.enum(["own", "shared"]).default("shared"),
  /**
   * More registry databases (shards) beside the first, each created in its place: a D1 location hint (`wnam`, `enam`,
   * `weur`, `eeur`, `apac`, `oc`) or the EU jurisdiction (`eu`, data residency). Shard N is `oc-registry-N`, bound as
   * `REGISTRY_N`; new projects spread over their place's shards (docs/scale.md "Writes: shard by project"). Only ever
   * append: a shard's position is its index, which bookmarks name.
   */
  registry_shards: z
    .array(z.strictObject({ place: z.enum(["wnam", "enam", "weur", "eeur", "apac", "oc", "eu"]) }))
    .max(15)
    .default([]),
  /**
   * The transparency log's witnesses (issue 48; docs/log.md "Witnesses"): each a C2SP tlog-witness, its vkey
   * (`<name>+<hex key ID>+<base64(0x04 ‖ Ed25519 key)>`) and its submission prefix (`<url>/add-checkpoint`). The fleet
   * gets them as LOG_WITNESSES, reads them again (a malformed one is said on the log screen) and sends each new
   * checkpoint to every one. None by default: checkpoints carry the log's own signature only.
   */
  log_witnesses: z
    .array(
      z.strictObject({
        vkey: z.string().regex(/^[^\s+]+\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/, "a witness vkey: name+hex8+base64"),
        url: z.url({ protocol: /^https$/ }),
      }),
    )
    .max(16)
    .default([]),
});

/** One line per problem: `environments.production.auth_host: a lowercase host name…`. */
export function describeIssues(error) {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(the file)"}: ${i.message}`);
}

/** The configuration in `file`, or a thrown Error naming the first problem (the caller prints it as one line). */
export function loadDeployConfig(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new Error(`no deploy configuration at ${file}: copy deploy.config.example.json there and fill it in`);
  }
  let json;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not JSON (${err.message})`);
  }
  const parsed = DeployConfig.safeParse(json);
  if (!parsed.success) throw new Error(`${file}: ${describeIssues(parsed.error)[0]}`);
  return parsed.data;
}

/** Secrets the configuration needs from the environment at deploy time, each with what asks for it. */
export function requiredEnvSecrets(config) {
  const needed = [];
  if (config.mail) needed.push(["MAIL_API_KEY", "mail"]);
  if (config.providers.github)
    needed.push(["GITHUB_CLIENT_ID", "providers.github"], ["GITHUB_CLIENT_SECRET", "providers.github"]);
  if (config.providers.google)
    needed.push(["GOOGLE_CLIENT_ID", "providers.google"], ["GOOGLE_CLIENT_SECRET", "providers.google"]);
  if (config.providers.oidc)
    needed.push(["OIDC_CLIENT_ID", "providers.oidc"], ["OIDC_CLIENT_SECRET", "providers.oidc"]);
  if (config.billing.stripe)
    needed.push(["STRIPE_SECRET_KEY", "billing.stripe"], ["STRIPE_WEBHOOK_SECRET", "billing.stripe"]);
  if (config.billing.btcpay)
    needed.push(["BTCPAY_API_KEY", "billing.btcpay"], ["BTCPAY_WEBHOOK_SECRET", "billing.btcpay"]);
  return needed;
}
