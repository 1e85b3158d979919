// Loads the kit's TypeScript for the Node scripts and the `oc` CLI: from the sources through esbuild in memory
// when esbuild is installed (a clone), else from the bundle `npm run build:kit` wrote to .build/kit/ (a package that
// installed this one from a tarball or git, where devDependencies are absent).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const BUILT = new URL("../../.build/kit/node.mjs", import.meta.url);

export async function loadKit() {
  let esbuildAvailable = true;
  try {
    await import("esbuild");
  } catch {
    esbuildAvailable = false;
  }
  if (esbuildAvailable) {
    const { importTs } = await import("../lib/import-ts.mjs");
    return importTs("shared/kit/node-entry.ts");
  }
  if (existsSync(fileURLToPath(BUILT))) return import(BUILT.href);
  throw new Error("the kit is not built: run `npm run build:kit` (needs esbuild) in the open-oc package");
}
