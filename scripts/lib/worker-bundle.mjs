// esbuild options for bundling a worker the way workerd loads it (ESM, workerd conditions, cloudflare:* external):
// shared by the test suite's auxiliary verify worker (scripts/build-aux.mjs) and the benchmarks' own workers.
// A `.wasm` import (libsecp256k1) is copied beside the bundle under its own name and stays an import, as wrangler
// does; whoever serves the bundle lists that file as a CompiledWasm module (WASM_MODULES) so workerd hands the worker
// a compiled WebAssembly.Module (workerd will not compile bytes at run time).
export const WORKER_BUNDLE_OPTIONS = {
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "neutral",
  mainFields: ["module", "main"],
  conditions: ["workerd", "worker", "import"],
  external: ["cloudflare:*"],
  loader: { ".wasm": "copy" },
  assetNames: "[name]",
  logLevel: "warning",
};

/** The `.wasm` files a bundle built with these options imports (beside index.js). */
export const WASM_MODULES = ["secp256k1.wasm"];
