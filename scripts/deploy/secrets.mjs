// The secrets a first deploy makes (issue 28): the session and audit signing keys, the OpenID provider's RSA key (Ed25519 private JWKs, as
// `npm run keys` makes them), the email-code HMAC key, the webhook master key and the cron secret, 32 random bytes
// each. The audit key's public half becomes the auth host's PUBLISHED_KEYS (marked for audit by the JWKS route).
// Values are only ever written to a 0600 file for `wrangler secret bulk` and deleted after; never printed.
import { randomBytes } from "node:crypto";
import { generateIdTokenJwk, generateSigningJwk } from "../dev-keys.mjs";

const random = () => randomBytes(32).toString("base64url");
const publicOf = ({ kty, crv, x, kid }) => ({ kty, crv, x, kid });

/** Values for the generated secrets among `names`; PUBLISHED_KEYS is the public half of the FLEET_SIGNING_KEY made. */
export function generateSecrets(names, fleetKey = generateSigningJwk()) {
  const makers = {
    AUTH_SIGNING_KEY: () => JSON.stringify(generateSigningJwk()),
    ID_TOKEN_SIGNING_KEY: () => JSON.stringify(generateIdTokenJwk()),
    FLEET_SIGNING_KEY: () => JSON.stringify(fleetKey),
    PUBLISHED_KEYS: () => JSON.stringify([publicOf(fleetKey)]),
    EMAIL_CODE_KEY: random,
    WEBHOOK_MASTER_KEY: random,
    CRON_SECRET: random,
  };
  return Object.fromEntries(names.filter((n) => n in makers).map((name) => [name, makers[name]()]));
}
