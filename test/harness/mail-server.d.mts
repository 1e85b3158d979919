// Types for mail-server.mjs.
export function startMail(options?: { port?: number; host?: string; unref?: boolean; apiKey?: string }): Promise<{
  url: string;
  apiKey: string;
  close(): Promise<void>;
}>;
