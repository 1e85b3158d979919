// Types for dev-keys.mjs (imported by vitest.config.ts).
export function generateSigningJwk(): { kty: string; crv: string; x: string; d: string; kid: string };
