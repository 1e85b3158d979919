// Signing an ID token (issue 33): the claims from claims.ts, signed by the provider's key with jose; `at_hash` is
// the left half of the access token's SHA-256, base64url (OpenID Connect Core 3.1.3.6, for RS256).
import { base64url, SignJWT } from "jose";
import { type IdTokenInput, idTokenClaims } from "./claims";
import { ID_TOKEN_ALG, type OidcKey } from "./keys";

/** ID tokens live an hour: they prove a sign-in happened, they are not used to call anything. */
export const ID_TOKEN_TTL_SECONDS = 3600;

export async function atHash(accessToken: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken)));
  return base64url.encode(digest.slice(0, digest.length / 2));
}

export function signIdToken(key: OidcKey, input: Omit<IdTokenInput, "ttlSeconds">): Promise<string> {
  return new SignJWT(idTokenClaims({ ...input, ttlSeconds: ID_TOKEN_TTL_SECONDS }))
    .setProtectedHeader({ alg: ID_TOKEN_ALG, kid: key.kid, typ: "JWT" })
    .sign(key.privateKey);
}
