// Builds what the benchmarks serve: each product worker exactly as `wrangler deploy` would upload it
// (`wrangler deploy --dry-run --outdir`), and the bench-only workers (baselines, in-isolate loops) with esbuild.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { build } from "esbuild";
import { nodeSecp256k1 } from "../../scripts/lib/node-secp256k1.mjs";
import { WORKER_BUNDLE_OPTIONS } from "../../scripts/lib/worker-bundle.mjs";

export const ROOT = path.join(import.meta.dirname, "..", "..");
export const OUT = path.join(ROOT, ".build", "bench");

const CONFIGS = {
  fleet: "workers/fleet/wrangler.toml",
  verify: "workers/verify/wrangler.toml",
  auth: "wrangler.toml",
};

/** `wrangler deploy --dry-run` of one product worker; returns the bundle's directory (absolute: wrangler resolves
 * a relative --outdir against the config's folder). */
export function buildProductWorker(name) {
  const outdir = path.join(OUT, name);
  execFileSync(
    path.join(ROOT, "node_modules", ".bin", "wrangler"),
    ["deploy", "--dry-run", "--outdir", outdir, "-c", CONFIGS[name]],
    {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    },
  );
  return { dir: outdir, script: path.join(outdir, "index.js"), config: path.join(ROOT, CONFIGS[name]) };
}

/** A bench-only worker from bench/workers/<name>.ts, bundled the way scripts/build-aux.mjs bundles verify. */
export async function buildBenchWorker(name) {
  const outdir = path.join(OUT, `bench-${name}`);
  await build({
    entryPoints: [path.join(ROOT, "bench", "workers", `${name}.ts`)],
    outfile: path.join(outdir, "index.js"),
    ...WORKER_BUNDLE_OPTIONS,
  });
  return { dir: outdir, script: path.join(outdir, "index.js") };
}

/** Imports a TypeScript module of bench/ in Node: bundled by esbuild to .build/bench, packages left external. */
export async function importBenchTs(name) {
  const outfile = path.join(OUT, `${name}.mjs`);
  await build({
    entryPoints: [path.join(ROOT, "bench", `${name}.ts`)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    packages: "external",
    plugins: [nodeSecp256k1],
    logLevel: "warning",
  });
  return import(outfile);
}

/**
 * An experiment build of a product worker with some of its modules replaced (esbuild onLoad), for "what if"
 * attempts on a miss; never what the project's figure is measured on.
 */
export async function buildVariant(name, entry, replacements) {
  const outdir = path.join(OUT, `variant-${name}`);
  await build({
    entryPoints: [path.join(ROOT, entry)],
    outfile: path.join(outdir, "index.js"),
    ...WORKER_BUNDLE_OPTIONS,
    plugins: [
      {
        name: "replace",
        setup(b) {
          for (const [file, contents] of Object.entries(replacements)) {
            const filter = new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`);
            b.onLoad({ filter }, () => ({ contents, loader: "ts", resolveDir: path.dirname(path.join(ROOT, file)) }));
          }
        },
      },
    ],
  });
  return { dir: outdir, script: path.join(outdir, "index.js") };
}
