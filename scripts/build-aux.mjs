// Pre-bundles the verify worker for the vitest run, where it is the auth worker's auxiliary VERIFY service
// (auxiliary workers need plain bundled JS; see ../shared/TOOLCHAIN.md 3a).
import path from "node:path";
import { build } from "esbuild";
import { WORKER_BUNDLE_OPTIONS } from "./lib/worker-bundle.mjs";

const root = path.join(import.meta.dirname, "..");
await build({
  entryPoints: [path.join(root, "workers/verify/src/index.ts")],
  outfile: path.join(root, ".build/aux/verify/index.js"),
  ...WORKER_BUNDLE_OPTIONS,
});
console.log("verify worker bundled in .build/aux/verify");
