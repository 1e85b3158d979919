// The whole suite: one vitest project per worker, each inside workerd with real D1, KV and Durable Objects
// (@cloudflare/vitest-plugin), plus a Node project for the few checks whose tools cannot run in workerd
// (files named *.node.test.ts: the OpenAPI 3.1 validator generates code at runtime; bip322-js signs).
import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { generateIdTokenJwk, generateSigningJwk } from "./scripts/dev-keys.mjs";
import { signedAttestations } from "./test/harness/attestations";
import { startBtcpay } from "./test/harness/btcpay-server.mjs";
import { startEsplora } from "./test/harness/esplora-server.mjs";
import { startMail } from "./test/harness/mail-server.mjs";
import { startRelay } from "./test/harness/nostr-relay.mjs";
import { startOidc } from "./test/harness/oidc-server.mjs";
import { startStripe } from "./test/harness/stripe-server.mjs";
import { startReceiver } from "./test/harness/webhook-receiver.mjs";
import { startWitness } from "./test/harness/witness-server.mjs";
import { workerdDependencies } from "./test/harness/workerd-deps.mjs";

const root = import.meta.dirname;
/**
 * Tests of one database's mechanics, which the fleet-shards pass leaves out: they hand the worker a recording or
 * refusing wrapper of `DB` (round trips, rows, failed writes) or read SQLite's query plans and storage, so with the
 * project in another shard they would measure a database the request never touches.
 */
const ONE_DATABASE_TESTS = [
  "test/fleet/log-bounded-reads.test.ts",
  // Migrates a database of its own (MIGRATION_DB, the fleet project's only) from 0020 to 0021.
  "test/fleet/migration-0021.test.ts",
  // Migrates MIGRATION_DB from 0021 to 0022 (the sign-in tables).
  "test/fleet/migration-0022.test.ts",
  "test/fleet/registration-round-trips.test.ts",
  "test/fleet/registration-rows.test.ts",
  "test/fleet/registry-query-plans.test.ts",
  "test/fleet/storage-per-registration.test.ts",
  "test/fleet/unconfigured-and-failed-writes.test.ts",
];
/**
 * The workerd files share a runtime (`isolate: false`): each vitest worker starts workerd once per project and runs
 * file after file in it, with the storage and the worker's loaded modules of the files before. Starting a runtime and
 * loading the worker's modules anew took about 4 s a file, two thirds of the workerd projects' time. Tests make
 * their own accounts, projects, wallets and client addresses, so another file's rows do not change what they see.
 * These files read what the whole database holds, so they run in a runtime of their own (the `-alone` projects):
 * D1's rows read and written and query plans, a sweep or cron over every project or account, the sign-in provider's
 * fixed users, and the migration tests' own database.
 */
const OWN_RUNTIME_TESTS = [
  "test/auth/oauth-profile.test.ts",
  "test/auth/reauthentication.test.ts",
  "test/auth/sign-in-query-plans.test.ts",
  "test/auth/sign-in-rows.test.ts",
  "test/auth/webauthn-challenge-sweep.test.ts",
  "test/fleet/log-bounded-reads.test.ts",
  "test/fleet/migration-0021.test.ts",
  "test/fleet/migration-0022.test.ts",
  "test/fleet/reconciler.test.ts",
  "test/fleet/registration-round-trips.test.ts",
  "test/fleet/registration-rows.test.ts",
  "test/fleet/registry-query-plans.test.ts",
  "test/fleet/restore-drill.test.ts",
  "test/fleet/session-check-rows.test.ts",
  "test/fleet/storage-per-registration.test.ts",
  "test/fleet/transparency-log.test.ts",
  "test/fleet/unconfigured-and-failed-writes.test.ts",
];
/**
 * Node files that run one at a time, after the files that run side by side: each starts a stack on fixed ports
 * (`npm start`'s scripts, wrangler), or runs `npm pack` on the kit, whose prepack rebuilds packages/kit/dist while
 * other files run the CLI from it, or times a rule in milliseconds that a core busy with other files stretches (the
 * session verifier's one JWKS read per 100 ms: a wave of ten verifies outlasted it once). deploy-plan writes the
 * deploy command's folders (.deploy/<env>) as deploy.node does, which runs side by side with the others: one of the
 * two runs here, so they never run at once.
 */
const NODE_ONE_AT_A_TIME = [
  "test/kit/consumer-stack.node.test.ts",
  "test/kit/package-fixtures.node.test.ts",
  "test/kit/package.node.test.ts",
  "test/kit/quickstarts.node.test.ts",
  "test/kit/session-verifier.node.test.ts",
  "test/scripts/commands.node.test.ts",
  "test/scripts/deploy-plan.node.test.ts",
  "test/scripts/dev-start.node.test.ts",
  "test/shared/openapi-answers.node.test.ts",
];
/** Files of `include`'s folders (each glob's part before its first `*`) among `files`. */
const within = (files: readonly string[], include: readonly string[]) =>
  files.filter((f) => include.some((glob) => f.startsWith(glob.slice(0, glob.indexOf("*")))));
const COMPATIBILITY_DATE = "2026-05-01";
/** Every import of shared/bitcoin/secp256k1-module (the workerd `.wasm` import) → its Node twin. */
const NODE_SECP256K1_MODULE = {
  find: /^.*\/secp256k1-module$/,
  replacement: path.join(root, "shared/bitcoin/secp256k1-module.node.ts"),
};

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(root, "d1-migrations"));
  // A fresh signing key per run, and a retired one published beside it (rotation tests).
  const signingKey = generateSigningJwk();
  const { d: _retiredSecret, ...retiredPublic } = generateSigningJwk();
  // The fleet's own key (audit bundles), published in the auth host's JWKS beside the session keys.
  const fleetKey = generateSigningJwk();
  const { d: _fleetSecret, ...fleetPublic } = fleetKey;
  // A session key the auth host rotated to after the fleet's AUTH_PUBLIC_KEYS was written: only its JWKS has it.
  const rotatedKey = generateSigningJwk();
  const { d: _rotatedSecret, ...rotatedPublic } = rotatedKey;
  // A real local OpenID Connect provider: the generic OIDC provider, and GitHub and Google pointed at it.
  const oidc = await startOidc({ unref: true });
  // A Resend-compatible mail API for the email-code and contact routes.
  const mail = await startMail({ unref: true });
  const providerBindings = {
    OIDC_ISSUER: oidc.issuer,
    OIDC_CLIENT_ID: "test-oidc-client",
    OIDC_CLIENT_SECRET: "test-oidc-secret",
    OIDC_LABEL: "Local OIDC",
    GOOGLE_CLIENT_ID: "test-google-client",
    GOOGLE_CLIENT_SECRET: "test-google-secret",
    GOOGLE_ISSUER: oidc.issuer,
    GITHUB_CLIENT_ID: "test-github-client",
    GITHUB_CLIENT_SECRET: "test-github-secret",
    GITHUB_AUTHORIZE_URL: `${oidc.issuer}/authorize`,
    GITHUB_TOKEN_URL: `${oidc.issuer}/token`,
    GITHUB_USER_URL: `${oidc.issuer}/userinfo`,
    // The local server also answers GitHub's token request with an id_token, which must then name GitHub's issuer.
    GITHUB_ISSUER: oidc.issuer,
    EMAIL_CODE_KEY: "test-email-code-key-0123456789abcdef",
    MAIL_API_URL: mail.url,
    MAIL_API_KEY: mail.apiKey,
    MAIL_FROM: "OrangeCheck open <no-reply@example.com>",
    CONTACT_TO: "team@example.com",
  };
  const testBindings = {
    ...providerBindings,
    // Explicit, so a developer's .dev.vars (read by the plugin beside wrangler.toml) never changes what tests see.
    AUTH_ORIGIN: "http://localhost:8787",
    TEST_MIGRATIONS: migrations,
    AUTH_SIGNING_KEY: JSON.stringify(signingKey),
    ID_TOKEN_SIGNING_KEY: JSON.stringify(generateIdTokenJwk()),
    AUTH_PREVIOUS_KEYS: JSON.stringify([retiredPublic]),
    PUBLISHED_KEYS: JSON.stringify([fleetPublic]),
    // An issuer that announces RFC 9207 (test/auth/oauth-issuer.test.ts points the generic provider at it).
    TEST_OIDC_RFC9207_ISSUER: oidc.rfc9207Issuer,
  };
  // The verify worker's upstreams, speaking the real protocols on loopback: one Esplora API, two nostr relays. Each
  // runtime gets its own (the plugin asks for the options when it starts a runtime): runtimes run side by side, and a
  // file that takes its upstream down or moves the tip must not reach another runtime's files.
  const attestations = JSON.stringify(signedAttestations());
  const verifyBindings = async () => {
    const esplora = await startEsplora({ unref: true });
    const relays = [await startRelay({ unref: true }), await startRelay({ unref: true })];
    return {
      ESPLORA_URL: esplora.url,
      NOSTR_RELAYS: relays.map((r) => r.url).join(","),
      CONFIRMATIONS: "6",
      TEST_FAKES: JSON.stringify({
        esplora: esplora.url,
        relays: relays.map((r) => ({ url: r.url, admin: r.adminUrl })),
      }),
      TEST_ATTESTATIONS: attestations,
    };
  };
  const { d: _signingSecret, ...signingPublic } = signingKey;
  // A webhook receiver on loopback that verifies deliveries with the stock libraries.
  const receiver = await startReceiver({ unref: true });
  // Three transparency-log witnesses (C2SP tlog-witness), each its own key and state (test/fleet/log-witness*.test.ts).
  const witnesses = await Promise.all([1, 2, 3].map((n) => startWitness({ name: `witness.test/w${n}`, unref: true })));
  // The payment processors: Stripe's and BTCPay Server's APIs and webhook signatures, on loopback.
  const stripe = await startStripe({ unref: true });
  const btcpay = await startBtcpay({ unref: true });
  const fleetBindings = {
    ...testBindings,
    WEBHOOK_MASTER_KEY: "test-master-key-0123456789abcdef-0123456789",
    WEBHOOK_ALLOW_LOOPBACK: "true",
    CRON_SECRET: "test-cron-secret",
    TEST_RECEIVER: receiver.url,
    TEST_WITNESSES: JSON.stringify(witnesses.map((w) => ({ vkey: w.vkey, url: w.url }))),
    STRIPE_API_BASE: stripe.url,
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    BTCPAY_URL: btcpay.url,
    BTCPAY_API_KEY: btcpay.apiKey,
    BTCPAY_STORE_ID: btcpay.storeId,
    BTCPAY_WEBHOOK_SECRET: btcpay.webhookSecret,
    AUTH_PUBLIC_KEYS: JSON.stringify([signingPublic, retiredPublic]),
    FLEET_SIGNING_KEY: JSON.stringify(fleetKey),
    /** No log integration by alarm during a test: tests integrate when they mean to (test/helpers/log.ts). */
    LOG_CHECKPOINT_INTERVAL_MS: "3600000",
    /** Signs cookies with the rotated key (test/fleet/session-key-rotation.test.ts). */
    TEST_ROTATED_SIGNING_KEY: JSON.stringify(rotatedKey),
  };
  // The fleet's AUTH binding: /api/auth/* is forwarded there; a stub shows the forwarding without a second D1. It
  // answers the JWKS the auth host publishes after a rotation (the rotated key first, then the keys it still
  // publishes, the fleet's audit key marked as such) and counts those reads (GET /__test/jwks-reads); anything else
  // is 401.
  const authStub = {
    name: "auth",
    modules: true,
    bindings: {
      JWKS: JSON.stringify({
        keys: [
          ...[rotatedPublic, signingPublic, retiredPublic].map((k) => ({ ...k, oc_use: "session" })),
          { ...fleetPublic, oc_use: "audit" },
        ],
      }),
    },
    script: `let reads = 0;
export default {
  fetch(r, env) {
    const path = new URL(r.url).pathname;
    if (r.method === "GET" && path === "/api/auth/jwks") {
      reads += 1;
      return new Response(env.JWKS, { headers: { "content-type": "application/json" } });
    }
    if (r.method === "GET" && path === "/__test/jwks-reads") return Response.json({ reads });
    return Response.json({ ok: false, reason: "not_authenticated", via: "auth", path }, { status: 401 });
  },
};`,
    compatibilityDate: COMPATIBILITY_DATE,
  };
  const verifyAux = {
    name: "verify",
    // The bundle and the libsecp256k1 `.wasm` it imports from beside it (scripts/lib/worker-bundle.mjs), listed:
    // the plugin's miniflare does not follow a bundle's imports.
    modules: [
      { type: "ESModule" as const, path: path.join(root, ".build/aux/verify/index.js") },
      { type: "CompiledWasm" as const, path: path.join(root, ".build/aux/verify/secp256k1.wasm") },
    ],
    modulesRoot: path.join(root, ".build/aux/verify"),
    compatibilityDate: COMPATIBILITY_DATE,
    // SQLite-backed, as in wrangler.toml: the limiter keeps its bucket in the synchronous SQLite KV.
    durableObjects: { RATE_LIMITER: { className: "RateLimiter", useSQLite: true } },
  };
  // Each workerd runtime (one per `-alone` file) loads the worker's modules anew: its packages pre-bundled, one
  // module each instead of hundreds of files (test/harness/workerd-deps.mjs says why the list is read, not written).
  const workerdDeps = {
    optimizer: {
      ssr: {
        enabled: true,
        include: workerdDependencies(root, ["test/helpers/log-scan.ts", "test/helpers/apply-migrations.ts"]),
      },
    },
  };
  /**
   * A workerd project as two: its files in shared runtimes (`isolate: false`), and those of OWN_RUNTIME_TESTS it
   * includes each in a runtime of its own (`<name>-alone`). `plugin` makes the project's plugin, one per project.
   */
  const workerdProjects = (
    name: string,
    plugin: () => ReturnType<typeof cloudflareTest>,
    test: { include: string[]; exclude: string[]; setupFiles: string[] },
  ) => {
    const alone = within(OWN_RUNTIME_TESTS, test.include).filter((file) => !test.exclude.includes(file));
    const common = { ...test, root, deps: workerdDeps };
    return [
      { plugins: [plugin()], test: { ...common, name, isolate: false, exclude: [...test.exclude, ...alone] } },
      ...(alone.length > 0
        ? [{ plugins: [plugin()], test: { ...common, name: `${name}-alone`, include: alone } }]
        : []),
    ];
  };
  return {
    test: {
      // Every core: vitest's default leaves one idle (two cores ran one file at a time). The node project's stacks and
      // the browser tests still run one file at a time (fileParallelism below).
      maxWorkers: Math.max(2, availableParallelism()),
      projects: [
        // A mail API of the runtime's own: email-otp and recovery take theirs down for a moment.
        ...workerdProjects(
          "auth",
          () =>
            cloudflareTest(async () => ({
              wrangler: { configPath: path.join(root, "wrangler.toml") },
              miniflare: {
                bindings: { ...testBindings, MAIL_API_URL: (await startMail({ unref: true })).url },
                workers: [verifyAux],
              },
            })),
          {
            include: [
              "test/auth/**/*.test.ts",
              "test/shared/**/*.test.ts",
              "test/conformance/**/*.test.ts",
              "test/fuzz/auth/**/*.test.ts",
              "test/fuzz/shared/**/*.test.ts",
            ],
            exclude: ["**/*.node.test.ts"],
            setupFiles: ["test/helpers/log-scan.ts", "test/helpers/apply-migrations.ts"],
          },
        ),
        ...workerdProjects(
          "verify",
          () =>
            cloudflareTest(async () => ({
              wrangler: { configPath: path.join(root, "workers/verify/wrangler.toml") },
              miniflare: { bindings: await verifyBindings() },
            })),
          {
            include: ["test/verify/**/*.test.ts", "test/fuzz/verify/**/*.test.ts"],
            exclude: ["**/*.node.test.ts"],
            setupFiles: ["test/helpers/log-scan.ts"],
          },
        ),
        ...workerdProjects(
          "fleet",
          () =>
            cloudflareTest({
              wrangler: { configPath: path.join(root, "workers/fleet/wrangler.toml") },
              miniflare: {
                bindings: fleetBindings,
                workers: [authStub],
                // wrangler.toml's two, and one that test/helpers/apply-migrations.ts leaves unmigrated (a migration's
                // own test applies what it needs, test/fleet/migration-0021.test.ts).
                d1Databases: {
                  DB: "00000000-0000-0000-0000-000000000001",
                  AUTH_DB: "00000000-0000-0000-0000-000000000001",
                  MIGRATION_DB: "00000000-0000-0000-0000-0000000000c1",
                },
              },
            }),
          {
            include: ["test/fleet/**/*.test.ts", "test/fuzz/fleet/**/*.test.ts", "test/kit/**/*.test.ts"],
            exclude: ["**/*.node.test.ts"],
            setupFiles: ["test/helpers/log-scan.ts", "test/helpers/apply-migrations.ts"],
          },
        ),
        // The fleet's suite again past one database (issue 31): the auth host's database apart from the registry's
        // (the fleet reads sessions through AUTH_DB only), and the registry in three shards, two in the default
        // place and one in `eu`, so projects created by the tests spread over the first two. Tests that count one
        // database's statements or read its query plans run in the default pass only (their reason is beside them).
        ...workerdProjects(
          "fleet-shards",
          () =>
            cloudflareTest({
              wrangler: { configPath: path.join(root, "workers/fleet/wrangler.toml") },
              miniflare: {
                bindings: { ...fleetBindings, REGISTRY_SHARDS: "DB, REGISTRY_1, REGISTRY_2@eu" },
                workers: [authStub],
                d1Databases: {
                  DB: "00000000-0000-0000-0000-000000000001",
                  AUTH_DB: "00000000-0000-0000-0000-0000000000a1",
                  REGISTRY_1: "00000000-0000-0000-0000-000000000002",
                  REGISTRY_2: "00000000-0000-0000-0000-000000000003",
                },
              },
            }),
          {
            include: ["test/fleet/**/*.test.ts"],
            exclude: ["**/*.node.test.ts", ...ONE_DATABASE_TESTS],
            setupFiles: ["test/helpers/log-scan.ts", "test/helpers/apply-migrations.ts"],
          },
        ),
        {
          // Node cannot import a `.wasm` file: the verifier's libsecp256k1 comes from the twin that compiles its bytes.
          // Side by side with the workerd files: these use loopback ports the system picks and folders of their own.
          resolve: { alias: [NODE_SECP256K1_MODULE] },
          test: {
            name: "node",
            root,
            environment: "node",
            include: ["test/**/*.node.test.ts"],
            exclude: ["test/e2e/**", ...NODE_ONE_AT_A_TIME],
          },
        },
        {
          resolve: { alias: [NODE_SECP256K1_MODULE] },
          test: {
            name: "node-stacks",
            root,
            environment: "node",
            include: NODE_ONE_AT_A_TIME,
            fileParallelism: false,
          },
        },
        {
          // The browser tests: Chromium against the whole stack (scripts/dev.mjs). They run after every other project
          // has finished (group 1), one file at a time: sharing the two cores with the workerd suites made a stack
          // start, a page load or a sign-in miss its wait in loaded CI runs.
          resolve: { alias: [NODE_SECP256K1_MODULE] },
          test: {
            name: "e2e",
            root,
            environment: "node",
            include: ["test/e2e/**/*.node.test.ts"],
            fileParallelism: false,
            sequence: { groupOrder: 1 },
          },
        },
      ],
    },
  };
});
