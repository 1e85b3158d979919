// Types of key-rotation.mjs, for the TypeScript tests.
/** A new Ed25519 private JWK with its kid. */
export interface FreshKey {
  kty: string;
  crv: string;
  x?: string;
  d?: string;
  kid: string;
}
export const SESSION_LIFETIME_MS: number;
export const JWKS_CACHE_MS: number;
export function rotateSessionKey(input: { signingKey: string; previousKeys?: string; fresh: FreshKey; now?: number }): {
  secrets: { AUTH_SIGNING_KEY: string; AUTH_PREVIOUS_KEYS: string };
  /** The fleet's AUTH_PUBLIC_KEYS, for a fleet that sets it: the new key, then AUTH_PREVIOUS_KEYS. */
  fleetPublicKeys: string;
  oldKid: string;
  newKid: string;
  retireAt: string;
};
/** Throws (one human line) for the current signing key's kid, an audit key's and a kid AUTH_PREVIOUS_KEYS lacks. */
export function retireSessionKey(input: {
  signingKey: string;
  previousKeys?: string;
  publishedKeys?: string;
  kid: string;
}): {
  secrets: { AUTH_PREVIOUS_KEYS: string };
  /** The fleet's AUTH_PUBLIC_KEYS, for a fleet that sets it: the signing key, then the kept previous keys. */
  fleetPublicKeys: string;
  kid: string;
  kept: number;
};
export function rotateAuditKey(input: { signingKey: string; publishedKeys?: string; fresh: FreshKey }): {
  secrets: { FLEET_SIGNING_KEY: string };
  publishedKeys: string;
  oldKid: string;
  newKid: string;
};
