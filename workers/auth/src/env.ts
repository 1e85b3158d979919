// The auth worker's bindings and per-request variables.
import type { ProviderEnv } from "../../../shared/auth/oauth/providers";
import type { AuthGeneratedBindings } from "./bindings.generated";

/**
 * The bindings and variables the configuration declares come from it (bindings.generated.ts, `npm run types`: DB, KV,
 * RATE_LIMITER, VERIFY, ASSETS, AUTH_ORIGIN, FLEET_ORIGIN, BITCOIN_NETWORK); secrets and optional variables, which
 * the configuration does not hold, are declared here. Provider sign-in variables (DECISIONS 11, 27) are in ProviderEnv.
 */
export interface AuthBindings extends ProviderEnv, AuthGeneratedBindings {
  /** Secret: the Ed25519 private JWK (JSON, with kid) that signs session tokens. */
  AUTH_SIGNING_KEY?: string;
  /** Secret (optional): JSON array of retired public JWKs still accepted until their tokens expire. */
  AUTH_PREVIOUS_KEYS?: string;
  /** Optional: JSON array of other public JWKs to publish (the fleet's audit key); never accepted for sessions. */
  PUBLISHED_KEYS?: string;
  /** Parent domain for the shared cookie (e.g. `.example.com`); unset on localhost. */
  COOKIE_DOMAIN?: string;
  /** Secret keying the email-code HMACs (never a plain hash: a million codes crack offline). */
  EMAIL_CODE_KEY?: string;
  /** Resend-compatible mail API (DECISIONS 10, 27); DEV_MAIL_LOG=true writes mails to the dev log instead. */
  MAIL_API_URL?: string;
  MAIL_API_KEY?: string;
  MAIL_FROM?: string;
  DEV_MAIL_LOG?: string;
  /** Where the contact form is relayed. */
  CONTACT_TO?: string;
  /** Secret: the OpenID provider's RSA private JWK (JSON) that signs ID tokens (issue 33); unset: oidc_not_configured. */
  ID_TOKEN_SIGNING_KEY?: string;
  /** Hardware keys: `required` demands user verification (PIN, biometrics) in every ceremony; default preferred. */
  WEBAUTHN_USER_VERIFICATION?: string;
}

export type AuthEnv = { Bindings: AuthBindings };
