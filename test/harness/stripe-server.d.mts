// Types for stripe-server.mjs.
export function startStripe(options?: {
  port?: number;
  host?: string;
  unref?: boolean;
  secretKey?: string;
  webhookSecret?: string;
  webhookUrl?: string;
}): Promise<{
  url: string;
  secretKey: string;
  webhookSecret: string;
  setWebhookUrl(url: string): void;
  close(): Promise<void>;
}>;
