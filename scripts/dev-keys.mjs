// Generates an Ed25519 signing key as a private JWK with a kid (the AUTH_SIGNING_KEY secret's form).
import { generateKeyPairSync, randomBytes } from "node:crypto";

export function generateSigningJwk() {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d, kid: randomBytes(6).toString("base64url") };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(generateSigningJwk()));
