// Types for browser-stack.mjs.
import type { Browser } from "playwright-core";

export const CHROMIUM: string;
export function ensureChromium(): void;
export function startStack(options: {
  auth: number;
  fleet: number;
  authInspector: number;
  fleetInspector: number;
  stateDir: string;
  env?: Record<string, string>;
}): Promise<{ authOrigin: string; fleetOrigin: string; logFile: string; stop(): Promise<void> }>;
/** Empties `stateDir` and fills it with a copy of a state folder whose local D1 is migrated (made once per set). */
export function freshState(stateDir: string): void;
export function stackLogTail(logFile: string, lines?: number): string;
export function launchChromium(): Promise<Browser>;
