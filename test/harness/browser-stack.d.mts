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
}): Promise<{ authOrigin: string; fleetOrigin: string; stop(): Promise<void> }>;
export function launchChromium(): Promise<Browser>;
