// Builds what the benchmarks serve: each product worker exactly as `wrangler deploy` would upload it
// (`wrangler deploy --dry-run --outdir`), and the bench-only workers (baselines, in-isolate loops) with esbuild.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { unstable_readConfig } from "wrangler";
import { nodeSecp256k1 } from "../../scripts/lib/node-secp256k1.mjs";
import { WASM_MODULES, WORKER_BUNDLE_OPTIONS } from "../../scripts/lib/worker-bundle.mjs";

export const ROOT = path.join(import.meta.dirname, "..", "..");
export const OUT = path.join(ROOT, ".build", "bench");

const CONFIGS = {
  fleet: "workers/fleet/wrangler.toml",
  verify: "workers/verify/wrangler.toml",
  auth: "wrangler.toml",
  // bench-only, bundled by wrangler because it needs nodejs_compat: the bip322-js baseline
  bip322js: "bench/workers/bip322js.wrangler.toml",
};

/** `wrangler deploy --dry-run` of one product worker; returns the bundle's directory (absolute: wrangler resolves
 * a relative --outdir against the config's folder). Wrangler names the bundle after the config's `main`. */
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
  const { main } = unstable_readConfig({ config: path.join(ROOT, CONFIGS[name]) });
  const script = path.join(outdir, `${path.parse(main).name}.js`);
  return { dir: outdir, script, config: path.join(ROOT, CONFIGS[name]) };
}

/**
 * A bench-only worker from bench/workers/<name>.ts, bundled the way scripts/build-aux.mjs bundles verify; `modules`
 * lists the bundle and the `.wasm` files it imports from beside it (miniflare's explicit module list).
 */
export async function buildBenchWorker(name) {
  const outdir = path.join(OUT, `bench-${name}`);
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: [path.join(ROOT, "bench", "workers", `${name}.ts`)],
    outfile: path.join(outdir, "index.js"),
    ...WORKER_BUNDLE_OPTIONS,
  });
  const script = path.join(outdir, "index.js");
  const wasm = WASM_MODULES.map((file) => path.join(outdir, file)).filter((file) => existsSync(file));
  const modules = [{ type: "ESModule", path: script }, ...wasm.map((file) => ({ type: "CompiledWasm", path: file }))];
  return { dir: outdir, script, modules };
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
export async function buildVariant(name, product, replacements) {
  const outdir = path.join(OUT, `variant-${name}`);
  rmSync(outdir, { recursive: true, force: true });
  const { main } = unstable_readConfig({ config: path.join(ROOT, CONFIGS[product]) });
  await build({
    entryPoints: [path.resolve(ROOT, path.dirname(CONFIGS[product]), main)],
    outfile: path.join(outdir, "index.js"),
    ...WORKER_BUNDLE_OPTIONS,
    plugins: [
      {
        name: "replace",
        setup(b) {
          for (const [file, contents] of Object.entries(replacements)) {
            const filter = new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`);
            b.onLoad({ filter }, (args) => ({
              // A string replaces the module; a function edits its source (so the variant follows the product).
              contents: typeof contents === "function" ? contents(readFileSync(args.path, "utf8")) : contents,
              loader: "ts",
              resolveDir: path.dirname(path.join(ROOT, file)),
            }));
          }
        },
      },
    ],
  });
  const script = path.join(outdir, "index.js");
  const wasm = WASM_MODULES.map((file) => path.join(outdir, file)).filter((file) => existsSync(file));
  const modules = [{ type: "ESModule", path: script }, ...wasm.map((file) => ({ type: "CompiledWasm", path: file }))];
  return { dir: outdir, script, modules, config: path.join(ROOT, CONFIGS[product]) };
}
