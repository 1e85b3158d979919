// The fleet worker's bindings and per-request variables.
import type { RateLimiter } from "../../../shared/rate-limit/rate-limiter";
import type { Caller } from "./caller";

export interface FleetBindings {
  DB: D1Database;
  KV: KVNamespace;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** The auth worker: /api/auth/* on the fleet host is answered there, and its JWKS verifies cookies. */
  AUTH: Fetcher;
  /** The auth host's origin: the issuer of the session tokens accepted here. */
  AUTH_ORIGIN: string;
  FLEET_ORIGIN?: string;
  /** Secret: the fleet's own Ed25519 private JWK (own kid, published in the auth host's JWKS); signs audit bundles. */
  FLEET_SIGNING_KEY?: string;
  /** Optional: the auth host's public JWKs (JSON array); without it they are read from AUTH's JWKS. */
  AUTH_PUBLIC_KEYS?: string;
}

export type FleetEnv = { Bindings: FleetBindings; Variables: { caller: Caller | undefined } };
