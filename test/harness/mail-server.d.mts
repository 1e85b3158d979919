// Types for mail-server.mjs.
export function startMail(options?: { port?: number; host?: string; unref?: boolean; apiKey?: string }): Promise<{
  url: string;
  apiKey: string;
  /** The code of the next mail to `to` after the first `seen` (mails are sent after the answer: it waits). */
  nextCode(to: string, seen: number): Promise<string>;
  close(): Promise<void>;
}>;
