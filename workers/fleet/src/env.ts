// The fleet worker's bindings and per-request variables.
import type { BtcpayEnv } from "../../../shared/billing/btcpay";
import type { StripeEnv } from "../../../shared/billing/stripe";
import type { Db } from "../../../shared/db/client";
import type { FleetGeneratedBindings } from "./bindings.generated";
import type { DispatcherBindings } from "./durable-objects/webhook-dispatcher";
import type { Condition } from "./registry/conditions";
import type { TokenScope } from "./roles";

/** Who is calling (caller.ts resolves it once per request). */
export type Caller =
  /**
   * `address` is the token's creator, an owner of the project at this moment; `guessed`: taken from this isolate's
   * kept tokens on a guarded write, whose batch re-checks it (caller.ts).
   */
  | {
      kind: "token";
      tokenId: string;
      tokenHash: string;
      projectId: string;
      address: string;
      scope: TokenScope;
      guessed: boolean;
    }
  | { kind: "session"; accountId: string; address: string | null };

/**
 * The bindings and variables the configuration declares come from it (bindings.generated.ts, `npm run types`: DB,
 * KV, RATE_LIMITER, WEBHOOK_DISPATCHER, AUTH, AUTH_ORIGIN, FLEET_ORIGIN); secrets and optional variables are here.
 */
export interface FleetBindings extends FleetGeneratedBindings, StripeEnv, BtcpayEnv, DispatcherBindings {
  /** Secret: seals webhook signing secrets; unset → 503 webhook_master_key_unset on endpoint creation. */
  WEBHOOK_MASTER_KEY?: string;
  /** "true" only in local dev and tests: lets endpoints on 127.0.0.1 receive deliveries over http. */
  WEBHOOK_ALLOW_LOOPBACK?: string;
  /** Secret guarding the reconciler route; unset → 503 cron_secret_unset. */
  CRON_SECRET?: string;
  /** Secret: the fleet's own Ed25519 private JWK (own kid, published in the auth host's JWKS); signs audit bundles. */
  FLEET_SIGNING_KEY?: string;
  /** Optional: ms from a registration's poke to its log's next integration (default 1000; docs/log.md). */
  LOG_CHECKPOINT_INTERVAL_MS?: string;
  /** Optional: the log's witnesses, JSON `[{"vkey", "url"}]` (docs/log.md "Witnesses"; log/witness/config.ts). */
  LOG_WITNESSES?: string;
  /** Optional: the auth host's public JWKs (JSON array); without it they are read from AUTH's JWKS. */
  AUTH_PUBLIC_KEYS?: string;
  /** Optional price overrides (shared/billing/plans.ts): pro by card in US cents a month, over lightning in sats. */
  BILLING_PRO_USD_CENTS?: string;
  BILLING_PRO_SATS?: string;
  /** Optional: the registration gate's bounds (overload/gate.ts; default 512 in flight, a 500 ms predicted wait). */
  OVERLOAD_MAX_IN_FLIGHT?: string;
  OVERLOAD_BUDGET_MS?: string;
}

export type FleetEnv = {
  Bindings: FleetBindings;
  /**
   * `guessedAccess`: a registration's access conditions when they came from this isolate's memory, with the
   * project's database they are checked in (intake.ts).
   */
  Variables: {
    caller: Caller | undefined;
    guessedAccess?: { conditions: Condition[]; db: Db; projectId: string };
  };
};
