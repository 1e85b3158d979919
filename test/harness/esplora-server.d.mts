// Types for esplora-server.mjs.
export function startEsplora(options?: { port?: number; host?: string; unref?: boolean }): Promise<{
  url: string;
  state: unknown;
  close(): Promise<void>;
}>;
