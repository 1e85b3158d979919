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
/** A state folder holding only the migrated local D1, to copy as a new stack's (made once per set of migrations). */
export function migratedState(): string;
export function stackLogTail(logFile: string, lines?: number): string;
export function launchChromium(): Promise<Browser>;
