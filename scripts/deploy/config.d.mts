// Types of config.mjs for the TypeScript tests.
import type { z } from "zod";

export const ENVIRONMENTS: string[];
export const DeployConfig: z.ZodType<DeployConfigValue>;
export type DeployConfigValue = {
  environments: Partial<Record<"staging" | "production", Record<string, unknown>>>;
  bitcoin_network: string;
  verify?: { esplora_url: string; nostr_relays: string[]; confirmations: number };
  mail?: { api_url: string; from: string; contact_to?: string };
  providers: { github?: boolean; google?: boolean; oidc?: { issuer: string; label: string } };
  billing: { stripe?: boolean; btcpay?: { url: string; store_id: string } };
  webauthn_user_verification: string;
  account_deletion_grace_days: number;
  registry_database: "own" | "shared";
  registry_shards: { place: "wnam" | "enam" | "weur" | "eeur" | "apac" | "oc" | "eu" }[];
  log_witnesses: { vkey: string; url: string }[];
};
export function describeIssues(error: z.ZodError): string[];
export function loadDeployConfig(file: string): DeployConfigValue;
export function requiredEnvSecrets(config: DeployConfigValue): [string, string][];
