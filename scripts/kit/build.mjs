#!/usr/bin/env node
// `npm run build:kit` (also `prepare`, `pretest`, and the package's `prepack`): builds the integrator kit's package,
// packages/kit (@open-oc/kit), from the sources the service imports (shared/kit/): one implementation. tsup bundles
// each entry point to ESM with esbuild (the bundler the rest of the project uses) and writes one self-contained
// `.d.ts` per entry (rollup-plugin-dts), so a site's compiler reads declarations only, never this repository's
// sources under its own settings. Dependencies (jose, @scure/*, @noble/*) stay imports; hono is imported for types.
import { readFileSync } from "node:fs";
import path from "node:path";
import { build } from "tsup";
import { ENTRIES, nobleSecp256k1 } from "./entries.mjs";

const root = path.join(import.meta.dirname, "..", "..");
const packageDir = path.join(root, "packages", "kit");
/** The `open-oc` command line: bundled with the kit, no declarations. */
const BIN = { "open-oc": "packages/kit/src/open-oc.mjs" };

const version = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")).version;
const absolute = (entries) =>
  Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, path.join(root, file)]));

await build({
  entry: absolute({ ...ENTRIES, ...BIN }),
  outDir: path.join(packageDir, "dist"),
  clean: true,
  format: ["esm"],
  outExtension: () => ({ js: ".js", dts: ".d.ts" }),
  dts: { entry: absolute(ENTRIES) },
  tsconfig: path.join(packageDir, "tsconfig.build.json"),
  platform: "neutral",
  target: "es2022",
  splitting: true,
  treeshake: false,
  sourcemap: false,
  // Nothing but the kit's own code in the bundles: every package import stays an import.
  skipNodeModulesBundle: true,
  esbuildPlugins: [nobleSecp256k1],
  // `node:fs` stays `node:fs` in the command line (tsup would strip the prefix for old Node versions).
  removeNodeProtocol: false,
  silent: true,
});
console.log(`built packages/kit/dist (@open-oc/kit ${version}): ${Object.keys({ ...ENTRIES, ...BIN }).join(", ")}`);
