// The OpenID provider's own signing key (issue 33): an RSA private JWK in the ID_TOKEN_SIGNING_KEY secret, signing ID
// tokens with RS256, the algorithm every relying party supports (OpenID Connect Core 15.1 makes it the one an
// OP must offer). Not the session key: an ID token signed by the key that signs `oc_session` could be replayed as a
// session cookie to a site verifying sessions with the same JWKS; a key of its own, another algorithm and `oc_use:
// "oidc"` keep the two apart. Missing or unreadable: 503 oidc_not_configured.
import { type CryptoKey, calculateJwkThumbprint, importJWK, type JWK } from "jose";
import { AppError } from "../../../../shared/errors";

export const ID_TOKEN_ALG = "RS256";

export interface OidcKey {
  kid: string;
  privateKey: CryptoKey;
  /** The public half as the provider's JWKS publishes it. */
  publicJwk: JWK & { kid: string; oc_use: "oidc" };
}

const loaded = new Map<string, Promise<OidcKey>>();

async function load(secret: string): Promise<OidcKey> {
  const jwk = JSON.parse(secret) as JWK;
  if (jwk.kty !== "RSA" || typeof jwk.d !== "string" || typeof jwk.n !== "string" || typeof jwk.e !== "string") {
    throw new Error("not an RSA private JWK");
  }
  const kid = typeof jwk.kid === "string" && jwk.kid !== "" ? jwk.kid : await calculateJwkThumbprint(jwk);
  const privateKey = (await importJWK({ ...jwk, alg: ID_TOKEN_ALG }, ID_TOKEN_ALG)) as CryptoKey;
  return {
    kid,
    privateKey,
    publicJwk: { kty: "RSA", n: jwk.n, e: jwk.e, kid, alg: ID_TOKEN_ALG, use: "sig", oc_use: "oidc" },
  };
}

/** The key, read once per isolate and secret. */
export async function oidcKey(env: { ID_TOKEN_SIGNING_KEY?: string }): Promise<OidcKey> {
  const secret = env.ID_TOKEN_SIGNING_KEY;
  if (!secret) throw new AppError("oidc_not_configured", { detail: "ID_TOKEN_SIGNING_KEY is not set" });
  let key = loaded.get(secret);
  if (!key) {
    key = load(secret);
    loaded.set(secret, key);
  }
  try {
    return await key;
  } catch {
    loaded.delete(secret);
    throw new AppError("oidc_not_configured", { detail: "ID_TOKEN_SIGNING_KEY is not an RSA private JWK" });
  }
}

/** The key, or undefined when it is not configured: for the answers that are not the host's JSON (a page, OAuth's). */
export async function configuredKey(env: { ID_TOKEN_SIGNING_KEY?: string }): Promise<OidcKey | undefined> {
  try {
    return await oidcKey(env);
  } catch {
    return undefined;
  }
}
