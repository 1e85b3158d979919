// The deploy's plan as pure code (issue 28): the configuration's rules, each worker's wrangler configuration for an
// environment (names, bindings, ids, variables, routes, Workers Logs, from the tracked wrangler.toml), which
// secrets a worker still needs, the audit key's pair; and the dry run, which CI runs through this suite: the three
// production bundles build, and each fits the Workers limits (size and startup).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DeployConfig, type DeployConfigValue, describeIssues } from "../../scripts/deploy/config.mjs";
import { dryRun, SIZE_LIMITS, STARTUP_LIMIT_MS, startupOf } from "../../scripts/deploy/dry-run.mjs";
import { extraShards, missingSecrets, workerConfig } from "../../scripts/deploy/plan.mjs";
import { generateSecrets } from "../../scripts/deploy/secrets.mjs";
import { failureOf } from "../../scripts/deploy/wrangler-failure.mjs";

const config = (json: unknown): DeployConfigValue => DeployConfig.parse(json);
const ids = { database: "db-id", namespace: "kv-id" };

describe("the deploy configuration", () => {
  it("takes custom domains or a workers.dev subdomain; names each problem's setting", () => {
    const problems = (json: unknown) => {
      const parsed = DeployConfig.safeParse(json);
      return parsed.success ? [] : describeIssues(parsed.error);
    };
    expect(problems({ environments: { production: { workers_dev_subdomain: "acme" } } })).toEqual([]);
    expect(problems({ environments: {} })).toEqual(["environments: name at least one of staging, production"]);
    expect(problems({ environments: { production: {} } })).toEqual([
      "environments.production: give auth_host and fleet_host, or workers_dev_subdomain",
    ]);
    expect(
      problems({
        environments: {
          production: { auth_host: "auth.a.com", fleet_host: "fleet.b.com", cookie_domain: ".a.com" },
        },
      }),
    ).toEqual(["environments.production: cookie_domain .a.com does not cover fleet.b.com"]);
    expect(problems({ environments: { production: { workers_dev_subdomain: "acme" } }, secret: "x" })[0]).toMatch(
      /Unrecognized key/,
    );
  });
});

describe("each worker's configuration", () => {
  const production = config({
    environments: {
      production: { auth_host: "auth.example.com", fleet_host: "fleet.example.com", cookie_domain: ".example.com" },
      staging: { workers_dev_subdomain: "acme" },
    },
    verify: { nostr_relays: ["wss://a.example", "wss://b.example"] },
    mail: { api_url: "https://api.resend.com", from: "OC <no-reply@example.com>" },
  });

  it("production: the base names, custom domains, the shared database and namespace, the cron", () => {
    const auth = workerConfig("auth", { config: production, env: "production", ids }) as Record<string, never>;
    expect(auth).toMatchObject({
      name: "auth",
      routes: [{ pattern: "auth.example.com", custom_domain: true }],
      workers_dev: false,
      services: [{ binding: "VERIFY", service: "verify" }],
      // One database for both bindings today (the registry's own is issue 31's next step, docs/scale.md).
      d1_databases: [
        { binding: "DB", database_name: "oc-db", database_id: "db-id" },
        { binding: "REGISTRY_DB", database_name: "oc-db", database_id: "db-id" },
      ],
      kv_namespaces: [{ binding: "KV", id: "kv-id" }],
      observability: { enabled: true },
      vars: {
        AUTH_ORIGIN: "https://auth.example.com",
        FLEET_ORIGIN: "https://fleet.example.com",
        COOKIE_DOMAIN: ".example.com",
        MAIL_API_URL: "https://api.resend.com",
      },
    });
    const fleet = workerConfig("fleet", { config: production, env: "production", ids }) as Record<string, never>;
    expect(fleet).toMatchObject({ name: "fleet", triggers: { crons: ["*/5 * * * *"] } });
    const verify = workerConfig("verify", { config: production, env: "production", ids }) as Record<string, never>;
    // verify has no public route: auth reaches it through the service binding.
    expect(verify).toMatchObject({
      name: "verify",
      workers_dev: false,
      vars: { NOSTR_RELAYS: "wss://a.example,wss://b.example", CONFIRMATIONS: "6" },
    });
    expect(verify).not.toHaveProperty("routes");
    // Paths are absolute: the generated file lives in .deploy/<env>/.
    expect(String(auth.main)).toMatch(/^\/.*workers\/auth\/src\/index\.ts$/);
    expect(JSON.stringify([auth, fleet, verify])).not.toMatch(/00000000-0000-0000-0000-000000000001/);
  });

  it("staging: suffixed names everywhere, service bindings included, and workers.dev", () => {
    const fleet = workerConfig("fleet", { config: production, env: "staging", ids }) as Record<string, never>;
    expect(fleet).toMatchObject({
      name: "fleet-staging",
      workers_dev: true,
      services: [{ binding: "AUTH", service: "auth-staging" }],
      d1_databases: [
        { binding: "DB", database_name: "oc-db-staging" },
        { binding: "AUTH_DB", database_name: "oc-db-staging" },
      ],
      vars: { AUTH_ORIGIN: "https://auth-staging.acme.workers.dev" },
    });
  });

  it("registry_database own: the registry's bindings name oc-registry, the sign-in state's oc-db (issue 31)", () => {
    const own = config({ ...production, registry_database: "own" });
    const twoIds = { ...ids, registry: "registry-id" };
    const databases = (worker: string) =>
      (workerConfig(worker, { config: own, env: "staging", ids: twoIds }) as { d1_databases: unknown[] }).d1_databases;
    expect(databases("fleet")).toMatchObject([
      { binding: "DB", database_name: "oc-registry-staging", database_id: "registry-id" },
      { binding: "AUTH_DB", database_name: "oc-db-staging", database_id: "db-id" },
    ]);
    expect(databases("auth")).toMatchObject([
      { binding: "DB", database_name: "oc-db-staging", database_id: "db-id" },
      { binding: "REGISTRY_DB", database_name: "oc-registry-staging", database_id: "registry-id" },
    ]);
    // Left out, a configuration keeps the one database every earlier deployment has.
    expect(production.registry_database).toBe("shared");
  });

  it("registry_shards: oc-registry-N bound as REGISTRY_N on auth and fleet, listed in order with its place", () => {
    const sharded = config({
      ...production,
      registry_database: "own",
      registry_shards: [{ place: "weur" }, { place: "eu" }],
    });
    const withShards = {
      ...ids,
      registry: "registry-id",
      shards: { "oc-registry-1-staging": "shard-1", "oc-registry-2-staging": "shard-2" },
    };
    const of = (worker: string) =>
      workerConfig(worker, { config: sharded, env: "staging", ids: withShards }) as {
        d1_databases: unknown[];
        vars: Record<string, string>;
      };
    expect(extraShards(sharded, "staging")).toEqual([
      { binding: "REGISTRY_1", name: "oc-registry-1-staging", place: "weur" },
      { binding: "REGISTRY_2", name: "oc-registry-2-staging", place: "eu" },
    ]);
    expect(of("fleet").d1_databases.slice(2)).toMatchObject([
      { binding: "REGISTRY_1", database_name: "oc-registry-1-staging", database_id: "shard-1" },
      { binding: "REGISTRY_2", database_name: "oc-registry-2-staging", database_id: "shard-2" },
    ]);
    expect(of("fleet").vars.REGISTRY_SHARDS).toBe("DB, REGISTRY_1@weur, REGISTRY_2@eu");
    expect(of("auth").vars.REGISTRY_SHARDS).toBe("REGISTRY_DB, REGISTRY_1@weur, REGISTRY_2@eu");
    expect(of("verify").vars.REGISTRY_SHARDS).toBeUndefined();
    // Without shards nothing changes: no variable, the tracked bindings only.
    expect(
      (workerConfig("fleet", { config: production, env: "production", ids }) as { vars: object }).vars,
    ).not.toHaveProperty("REGISTRY_SHARDS");
    expect(() => config({ ...production, registry_shards: [{ place: "mars" }] })).toThrow();
  });
});

describe("secrets", () => {
  it("only what a worker lacks; the configuration's own secrets only when it asks for them", () => {
    expect(missingSecrets("auth", { needed: [], existing: [], fleetHasKey: false })).toEqual([
      "AUTH_SIGNING_KEY",
      "ID_TOKEN_SIGNING_KEY",
      "EMAIL_CODE_KEY",
      "PUBLISHED_KEYS",
    ]);
    const all = ["AUTH_SIGNING_KEY", "ID_TOKEN_SIGNING_KEY", "EMAIL_CODE_KEY", "PUBLISHED_KEYS", "MAIL_API_KEY"];
    // A host deployed before the OpenID provider (issue 33) gets its ID token key on the next deploy, and only that.
    expect(
      missingSecrets("auth", {
        needed: [],
        existing: all.filter((n) => n !== "ID_TOKEN_SIGNING_KEY"),
        fleetHasKey: true,
      }),
    ).toEqual(["ID_TOKEN_SIGNING_KEY"]);
    expect(missingSecrets("auth", { needed: ["MAIL_API_KEY"], existing: all, fleetHasKey: true })).toEqual([]);
    expect(missingSecrets("auth", { needed: ["MAIL_API_KEY"], existing: [], fleetHasKey: true })).toContain(
      "MAIL_API_KEY",
    );
    // The fleet without its key: auth publishes a new pair's public half, even over an earlier one.
    expect(missingSecrets("auth", { needed: [], existing: all, fleetHasKey: false })).toEqual(["PUBLISHED_KEYS"]);
    expect(missingSecrets("verify", { needed: ["MAIL_API_KEY"], existing: [], fleetHasKey: false })).toEqual([]);
  });

  it("generates the audit key and PUBLISHED_KEYS as one pair, and nothing guessable", () => {
    const made = generateSecrets(["FLEET_SIGNING_KEY", "PUBLISHED_KEYS", "CRON_SECRET", "WEBHOOK_MASTER_KEY"]);
    const key = JSON.parse(made.FLEET_SIGNING_KEY ?? "{}") as { x: string; d: string; kid: string };
    expect(JSON.parse(made.PUBLISHED_KEYS ?? "[]")).toEqual([{ kty: "OKP", crv: "Ed25519", x: key.x, kid: key.kid }]);
    expect(made.PUBLISHED_KEYS).not.toContain(key.d);
    expect(made.CRON_SECRET).toMatch(/^[\w-]{43}$/);
    expect(made.WEBHOOK_MASTER_KEY?.length).toBeGreaterThanOrEqual(32);
  });
});

describe("the dry run", () => {
  it("reads a V8 CPU profile's startup: its duration and the CPU in script", () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: "(root)" } },
        { id: 2, callFrame: { functionName: "(idle)" } },
        { id: 3, callFrame: { functionName: "evaluate" } },
      ],
      samples: [3, 2, 3],
      timeDeltas: [1000, 5000, 2000],
      startTime: 0,
      endTime: 9000,
    };
    expect(startupOf(profile)).toEqual({ durationMs: 9, cpuMs: 3 });
  });

  it("from a fresh clone (no built assets): builds the assets, then the three production bundles; each fits the limits", async () => {
    const said: string[] = [];
    // An empty folder stands in for a fresh clone's missing .build (issue 45): the dry run builds what it reads.
    const buildDir = mkdtempSync(path.join(tmpdir(), "oc-dry-run-"));
    const example = config({
      environments: { production: { auth_host: "auth.example.com", fleet_host: "fleet.example.com" } },
      verify: { nostr_relays: ["wss://relay.example"] },
    });
    const { rows, failures } = await dryRun({
      config: example,
      env: "production",
      buildDir,
      say: (l) => said.push(l),
    });
    for (const worker of ["verify", "auth", "fleet"]) {
      const generated = JSON.parse(readFileSync(path.join(buildDir, "deploy/production", `${worker}.json`), "utf8"));
      expect(generated.assets.directory.startsWith(buildDir), worker).toBe(true);
      expect(existsSync(generated.assets.directory), worker).toBe(true);
    }
    expect(rows.map((r) => r.worker)).toEqual(["verify", "auth", "fleet"]);
    for (const row of rows) {
      expect(row.gzip).toBeGreaterThan(100_000);
      expect(row.gzip).toBeLessThan(SIZE_LIMITS.free);
      expect(row.durationMs).toBeLessThan(STARTUP_LIMIT_MS);
    }
    expect(failures).toEqual([]);
    expect(said).toHaveLength(4);
    rmSync(buildDir, { recursive: true, force: true });
  }, 180_000);
});

describe("wrangler's failure, read (issue 45)", () => {
  // wrangler 4's answer to an authentication error when a wrangler login or a cached account id picked an account:
  // the request, the reason, and whoami's table, which lists every account the credentials reach.
  const output = [
    "\u001b[31m✘ \u001b[41;31m[\u001b[41;97mERROR\u001b[41;31m]\u001b[0m A request to the Cloudflare API (/accounts/0123/workers/scripts/auth) failed.",
    "",
    "  Authentication error [code: 10000]",
    "",
    "Getting User settings...",
    "┌──────────────┬──────────────────────────────────┐",
    "│ Account Name │ Account ID                       │",
    "├──────────────┼──────────────────────────────────┤",
    "│ Test         │ 0123456789abcdef0123456789abcdef │",
    "├──────────────┼──────────────────────────────────┤",
    "│ Other        │ fedcba9876543210fedcba9876543210 │",
    "└──────────────┴──────────────────────────────────┘",
  ].join("\n");

  it("keeps the [code: N] reason and the request; two accounts without CLOUDFLARE_ACCOUNT_ID: the hint to choose", () => {
    expect(failureOf(output)).toEqual({
      reason: "Authentication error [code: 10000]",
      headline: "A request to the Cloudflare API (/accounts/0123/workers/scripts/auth) failed.",
      hint: "The credentials reach 2 accounts: set CLOUDFLARE_ACCOUNT_ID to the one to deploy to.",
    });
    expect(failureOf(output, { accountIdSet: true }).hint).toBeUndefined();
    expect(failureOf("✘ [ERROR] Unknown arguments: x").reason).toBe("Unknown arguments: x");
  });
});
