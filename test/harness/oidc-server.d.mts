// Types for oidc-server.mjs.
export function startOidc(options?: { port?: number; host?: string; unref?: boolean }): Promise<{
  issuer: string;
  service: unknown;
  close(): Promise<void>;
}>;
