// Types for oidc-server.mjs.
export const RFC9207_PATH: string;
export function startOidc(options?: { port?: number; host?: string; unref?: boolean }): Promise<{
  issuer: string;
  /** An issuer whose metadata announces RFC 9207 and whose authorization responses carry `iss`. */
  rfc9207Issuer: string;
  service: unknown;
  close(): Promise<void>;
}>;
