// The bindings the tests see: the auth worker's, plus what vitest.config.ts injects.
import type { D1Migration } from "@cloudflare/vitest-plugin";
import type { AuthBindings } from "../workers/auth/src/env";

declare global {
  namespace Cloudflare {
    interface Env extends AuthBindings {
      TEST_MIGRATIONS: D1Migration[];
      /** auth project: the local issuer whose metadata announces RFC 9207 (test/harness/oidc-server.mjs). */
      TEST_OIDC_RFC9207_ISSUER?: string;
      /** verify project: the loopback Esplora API and relays (vitest.config.ts). */
      TEST_FAKES?: string;
      /** verify project: attestations signed by bip322-js in Node for each address type. */
      TEST_ATTESTATIONS?: string;
      ESPLORA_URL?: string;
      EMAIL_CODE_KEY?: string;
      MAIL_API_URL?: string;
      /** fleet projects: the auth host's database (the registry's own in the default pass, another in fleet-shards). */
      AUTH_DB?: D1Database;
      /** fleet-shards: the registry's shards (`DB, REGISTRY_1, REGISTRY_2@eu`) and the two beside DB. */
      REGISTRY_SHARDS?: string;
      REGISTRY_1?: D1Database;
      REGISTRY_2?: D1Database;
      /** fleet project: a database no setup file migrates, for a migration's own test (migration-0021.test.ts). */
      MIGRATION_DB?: D1Database;
      /** fleet projects: its audit-signing key. */
      FLEET_SIGNING_KEY?: string;
      /** fleet project: the loopback webhook receiver (test/harness/webhook-receiver.mjs). */
      TEST_RECEIVER?: string;
      WEBHOOK_DISPATCHER: DurableObjectNamespace<
        import("../workers/fleet/src/durable-objects/webhook-dispatcher").WebhookDispatcher
      >;
      /** fleet project: each project's log integrator (docs/log.md). */
      LOG_INTEGRATOR: DurableObjectNamespace<
        import("../workers/fleet/src/durable-objects/log-integrator").LogIntegrator
      >;
      NOSTR_RELAYS?: string;
      /** fleet project: the loopback Stripe and BTCPay Server APIs (test/harness/stripe-server.mjs, btcpay-server.mjs). */
      STRIPE_API_BASE?: string;
      STRIPE_SECRET_KEY?: string;
      STRIPE_WEBHOOK_SECRET?: string;
      BTCPAY_URL?: string;
      BTCPAY_API_KEY?: string;
      BTCPAY_STORE_ID?: string;
      BTCPAY_WEBHOOK_SECRET?: string;
    }
  }
}
