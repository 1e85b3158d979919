// Generates an Ed25519 signing key as a private JWK with a kid (the AUTH_SIGNING_KEY secret's form).
import { generateKeyPairSync, randomBytes } from "node:crypto";

export function generateSigningJwk() {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d, kid: randomBytes(6).toString("base64url") };
}

/** An RSA-2048 private JWK with a kid: the ID_TOKEN_SIGNING_KEY secret (the OpenID provider's RS256 key, issue 33). */
export function generateIdTokenJwk() {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const { kty, n, e, d, p, q, dp, dq, qi } = privateKey.export({ format: "jwk" });
  return { kty, n, e, d, p, q, dp, dq, qi, kid: randomBytes(6).toString("base64url") };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(generateSigningJwk()));
