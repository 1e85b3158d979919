// Loads the kit's TypeScript for the repository's Node scripts and its `oc` (scripts/oc.mjs): the sources compiled
// in memory by esbuild, so a clone runs what it holds without a build. The package (@open-oc/kit) bundles the kit
// beside its own `oc` instead (packages/kit/src/oc.mjs).
import { importTs } from "../lib/import-ts.mjs";

const loaded = new Map();
const load = (file) => {
  if (!loaded.has(file)) loaded.set(file, importTs(file));
  return loaded.get(file);
};

/** The kit as the CLI and the scripts use it: consumer, envelopes, webhooks, log (shared/kit/node-entry.ts). */
export const loadKit = () => load("shared/kit/node-entry.ts");

/** The operator's restore (shared/audit/restore/), which reads the service's schema: not part of the package. */
export const loadRestore = () => load("shared/audit/restore/index.ts");
