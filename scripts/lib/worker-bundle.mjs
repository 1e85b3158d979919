// esbuild options for bundling a worker the way workerd loads it (ESM, workerd conditions, cloudflare:* external):
// shared by the test suite's auxiliary verify worker (scripts/build-aux.mjs) and the benchmarks' own workers.
export const WORKER_BUNDLE_OPTIONS = {
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "neutral",
  mainFields: ["module", "main"],
  conditions: ["workerd", "worker", "import"],
  external: ["cloudflare:*"],
  logLevel: "warning",
};
