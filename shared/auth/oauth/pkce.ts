// The per-flow secrets of an authorization-code flow: the PKCE pair (RFC 7636, S256 only), the `state` that
// names the stored flow, and the OIDC `nonce` bound into the id_token. All from 32 random bytes, base64url.
import { base64urlnopad } from "@scure/base";
import { randomToken, utf8 } from "../../crypto/digest";

/** 32 random bytes: 43 base64url characters, the RFC 7636 §4.1 recommendation (allowed range 43-128). */
const SECRET_BYTES = 32;

export interface Pkce {
  verifier: string;
  challenge: string;
  method: "S256";
}

/** BASE64URL(SHA256(ASCII(verifier))), RFC 7636 §4.2. */
export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", utf8(verifier));
  return base64urlnopad.encode(new Uint8Array(digest));
}

export async function createPkce(): Promise<Pkce> {
  const verifier = randomToken(SECRET_BYTES);
  return { verifier, challenge: await pkceChallenge(verifier), method: "S256" };
}

/** The `state` parameter: unguessable, single use, the key of the stored flow. */
export function createState(): string {
  return randomToken(SECRET_BYTES);
}

/** The OIDC `nonce`: the id_token must carry it back, so a token minted for another flow is refused. */
export function createNonce(): string {
  return randomToken(SECRET_BYTES);
}
