// The per-flow secrets of an authorization-code flow, from oauth4webapi: the PKCE pair (RFC 7636, S256 only), the
// `state` that names the stored flow, and the OIDC `nonce` bound into the id_token. Each is 32 random bytes,
// base64url (43 characters, RFC 7636 §4.1's recommendation).
import {
  calculatePKCECodeChallenge,
  generateRandomCodeVerifier,
  generateRandomNonce,
  generateRandomState,
} from "oauth4webapi";

export interface Pkce {
  verifier: string;
  challenge: string;
  method: "S256";
}

/** BASE64URL(SHA256(ASCII(verifier))), RFC 7636 §4.2. */
export function pkceChallenge(verifier: string): Promise<string> {
  return calculatePKCECodeChallenge(verifier);
}

export async function createPkce(): Promise<Pkce> {
  const verifier = generateRandomCodeVerifier();
  return { verifier, challenge: await pkceChallenge(verifier), method: "S256" };
}

/** The `state` parameter: unguessable, single use, the key of the stored flow. */
export function createState(): string {
  return generateRandomState();
}

/** The OIDC `nonce`: the id_token must carry it back, so a token minted for another flow is refused. */
export function createNonce(): string {
  return generateRandomNonce();
}
