// Types for nostr-relay.mjs.
export function startRelay(options?: { port?: number; host?: string; unref?: boolean }): Promise<{
  url: string;
  adminUrl: string;
  state: unknown;
  close(): Promise<void>;
}>;
