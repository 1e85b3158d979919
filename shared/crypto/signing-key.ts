// The service's Ed25519 signing key (DECISIONS 6-7): a private JWK held as a secret, imported once per isolate
// into WebCrypto (about 10x faster than a JS implementation in workerd), and the public JWKS built from it.
import { type CryptoKey, importJWK, type JWK } from "jose";

export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: PublicJwk;
}

// Keyed by the secret's text, so a rotated secret imports afresh; holds CryptoKeys, never key material.
const signingKeys = new Map<string, Promise<SigningKey>>();
const verifyKeys = new Map<string, Promise<CryptoKey>>();

function isEd25519Jwk(value: unknown): value is JWK & { x: string; kid: string } {
  const jwk = value as Record<string, unknown> | null;
  return (
    typeof jwk === "object" &&
    jwk !== null &&
    jwk.kty === "OKP" &&
    jwk.crv === "Ed25519" &&
    typeof jwk.x === "string" &&
    typeof jwk.kid === "string" &&
    jwk.kid.length > 0
  );
}

export function toPublicJwk(jwk: { x: string; kid: string }): PublicJwk {
  return { kty: "OKP", crv: "Ed25519", x: jwk.x, kid: jwk.kid, alg: "EdDSA", use: "sig" };
}

/** Imports the private JWK secret (JSON with kty OKP, crv Ed25519, x, d, kid). Throws when it is unusable. */
export function loadSigningKey(secret: string): Promise<SigningKey> {
  let pending = signingKeys.get(secret);
  if (!pending) {
    pending = (async () => {
      const jwk: unknown = JSON.parse(secret);
      if (!isEd25519Jwk(jwk) || typeof (jwk as { d?: unknown }).d !== "string") {
        throw new Error("signing key secret is not an Ed25519 private JWK with a kid");
      }
      const privateKey = (await importJWK({ ...jwk, alg: "EdDSA" }, "EdDSA")) as CryptoKey;
      return { kid: jwk.kid, privateKey, publicJwk: toPublicJwk(jwk) };
    })();
    pending.catch(() => signingKeys.delete(secret));
    signingKeys.set(secret, pending);
  }
  return pending;
}

/**
 * What a key in the auth host's JWKS is for (the `oc_use` member): session keys verify oc_session tokens; the
 * other published keys (the fleet's audit key, DECISIONS 16: "same JWKS, own kid") verify audit bundles only.
 */
export type KeyUse = "session" | "audit";

/** The JWKS entry of a key: the public JWK and its use. */
export const publishedJwk = (jwk: PublicJwk, use: KeyUse) => ({ ...jwk, oc_use: use });

/**
 * The keys of a JWKS's `keys` array that may verify a session: Ed25519, and not marked for another use. A key with
 * no `oc_use` counts (key sets from before the marker, or a consumer's own).
 */
export function sessionKeysOf(keys: unknown): PublicJwk[] {
  if (!Array.isArray(keys)) return [];
  const forSessions = keys.filter(
    (k) => typeof k === "object" && k !== null && ((k as { oc_use?: unknown }).oc_use ?? "session") === "session",
  );
  return parsePreviousKeys(JSON.stringify(forSessions));
}

/**
 * Public keys kept for verification after a rotation: a JSON array of public JWKs (optional secret). A key may
 * carry `oc_retire_at` (ISO 8601, set by `npm run keys -- rotate session`: when the last token it signed has
 * expired); from then on it is left out, so it leaves the JWKS by itself. The member is never published.
 */
export function parsePreviousKeys(json: string | undefined, now: number = Date.now()): PublicJwk[] {
  if (!json) return [];
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) throw new Error("previous keys must be a JSON array of public JWKs");
  return parsed
    .filter(isEd25519Jwk)
    .filter((jwk) => !retired(jwk, now))
    .map(toPublicJwk);
}

function retired(jwk: Record<string, unknown>, now: number): boolean {
  const at = jwk.oc_retire_at;
  return typeof at === "string" && Date.parse(at) <= now;
}

export function importVerifyKey(jwk: PublicJwk): Promise<CryptoKey> {
  const cacheKey = `${jwk.kid}.${jwk.x}`;
  let pending = verifyKeys.get(cacheKey);
  if (!pending) {
    pending = importJWK(jwk, "EdDSA") as Promise<CryptoKey>;
    verifyKeys.set(cacheKey, pending);
  }
  return pending;
}
