// The auth worker's bindings and per-request variables.
import type { ProviderEnv } from "../../../shared/auth/oauth/providers";
import type { RateLimiter } from "../../../shared/rate-limit/rate-limiter";

/** Provider sign-in variables (DECISIONS 11, 27) are declared once, in ProviderEnv. */
export interface AuthBindings extends ProviderEnv {
  DB: D1Database;
  KV: KVNamespace;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  VERIFY: Fetcher;
  /** Static assets (the API explorer); served before the worker for paths that match a file. */
  ASSETS: Fetcher;
  /** Secret: the Ed25519 private JWK (JSON, with kid) that signs session tokens. */
  AUTH_SIGNING_KEY?: string;
  /** Secret (optional): JSON array of retired public JWKs still accepted until their tokens expire. */
  AUTH_PREVIOUS_KEYS?: string;
  /** Optional: JSON array of other public JWKs to publish (the fleet's audit key); never accepted for sessions. */
  PUBLISHED_KEYS?: string;
  /** This host's origin: the JWT issuer and the audience sign-in challenges must name. */
  AUTH_ORIGIN: string;
  /** Parent domain for the shared cookie (e.g. `.example.com`); unset on localhost. */
  COOKIE_DOMAIN?: string;
  /** The fleet's origin: its dashboard is a place sign-in may return to. */
  FLEET_ORIGIN?: string;
  /** Secret keying the email-code HMACs (never a plain hash: a million codes crack offline). */
  EMAIL_CODE_KEY?: string;
  /** Resend-compatible mail API (DECISIONS 10, 27); DEV_MAIL_LOG=true writes mails to the dev log instead. */
  MAIL_API_URL?: string;
  MAIL_API_KEY?: string;
  MAIL_FROM?: string;
  DEV_MAIL_LOG?: string;
  /** Where the contact form is relayed. */
  CONTACT_TO?: string;
  /** Hardware keys: `required` demands user verification (PIN, biometrics) in every ceremony; default preferred. */
  WEBAUTHN_USER_VERIFICATION?: string;
  /** Network whose addresses may sign in: mainnet (default), testnet or regtest. */
  BITCOIN_NETWORK?: string;
}

export type AuthEnv = { Bindings: AuthBindings };
