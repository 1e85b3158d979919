// Types for dev-keys.mjs (imported by vitest.config.ts).
export function generateSigningJwk(): { kty: string; crv: string; x: string; d: string; kid: string };
export function generateIdTokenJwk(): {
  kty: string;
  n: string;
  e: string;
  d: string;
  p: string;
  q: string;
  dp: string;
  dq: string;
  qi: string;
  kid: string;
};
