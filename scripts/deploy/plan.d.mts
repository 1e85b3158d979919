// Types of plan.mjs for the TypeScript tests.
import type { DeployConfigValue } from "./config.mjs";

export const root: string;
export const WORKERS: readonly { id: "verify" | "auth" | "fleet"; config: string }[];
export function nameIn(base: string, env: string): string;
export function resourceNames(env: string): { database: string; registry: string; namespace: string };
export function originsOf(envConfig: Record<string, unknown>, env: string): { auth: string; fleet: string };
export function varsOf(
  worker: string,
  config: DeployConfigValue,
  envConfig: Record<string, unknown>,
  origins: { auth: string; fleet: string },
): Record<string, string>;
export function workerConfig(
  worker: string,
  input: {
    config: DeployConfigValue;
    env: string;
    ids: { database: string; registry?: string; namespace: string; shards?: Record<string, string> };
    buildDir?: string;
  },
): Record<string, unknown>;
export function extraShards(config: DeployConfigValue, env: string): { binding: string; name: string; place: string }[];
export const GENERATED_SECRETS: Record<string, string[]>;
export function missingSecrets(
  worker: string,
  input: { needed: string[]; existing: string[]; fleetHasKey: boolean },
): string[];
