// Types for webhook-receiver.mjs.
export function startReceiver(options?: {
  port?: number;
  host?: string;
  unref?: boolean;
}): Promise<{ url: string; close(): Promise<void> }>;
