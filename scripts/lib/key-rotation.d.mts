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
  oldKid: string;
  newKid: string;
  retireAt: string;
};
export function rotateAuditKey(input: { signingKey: string; publishedKeys?: string; fresh: FreshKey }): {
  secrets: { FLEET_SIGNING_KEY: string };
  publishedKeys: string;
  oldKid: string;
  newKid: string;
};
