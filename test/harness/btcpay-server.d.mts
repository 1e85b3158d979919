// Types for btcpay-server.mjs.
export function startBtcpay(options?: {
  port?: number;
  host?: string;
  unref?: boolean;
  apiKey?: string;
  storeId?: string;
  webhookSecret?: string;
  webhookUrl?: string;
}): Promise<{
  url: string;
  apiKey: string;
  storeId: string;
  webhookSecret: string;
  setWebhookUrl(url: string): void;
  close(): Promise<void>;
}>;
