// Types of dry-run.mjs for the TypeScript tests.
import type { DeployConfigValue } from "./config.mjs";

export const SIZE_LIMITS: { free: number; paid: number };
export const STARTUP_LIMIT_MS: number;
export function bundleSize(dir: string): { raw: number; gzip: number };
export function startupOf(profile: {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}): { durationMs: number; cpuMs: number };
export function dryRun(input: {
  config: DeployConfigValue;
  env: string;
  buildDir?: string;
  say?: (line: string) => void;
}): Promise<{
  rows: { worker: string; raw: number; gzip: number; durationMs: number; cpuMs: number }[];
  failures: string[];
}>;
