// The packages the workerd test projects import, for Vite's dependency optimizer (vitest.config.ts `deps.optimizer`):
// each is bundled once per run into one module, so a test file's runtime loads a dozen modules instead of the
// ~300-600 files zod, drizzle, hono, jose and @simplewebauthn are made of, and loads them again for every runtime
// (one per vitest worker and project, and one per `-alone` file). Read from the import graph, never listed by hand: a package subpath left
// out would load unbundled beside its bundled copy, and a class checked with `instanceof` (hono's HTTPException) would
// then exist twice and a route would answer 500. Only what the workerd files reach: a package that only Node tests
// use (bip322-js) cannot be bundled for workerd at all.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** The workerd projects' test files (every `*.test.ts` under test/ but the Node ones) and the workers they start. */
const TEST_DIR = "test";
const SKIPPED_DIRS = new Set(["e2e", "fixtures", "harness"]);
const WORKERD_TEST = /(?<!\.node)\.test\.ts$/;
const WORKER_MAINS = ["workers/auth/src/index.ts", "workers/fleet/src/index.ts", "workers/verify/src/index.ts"];
/** How a relative import names a module: as written, or without its extension (TypeScript's resolution). */
const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".mjs", ".js", "/index.ts"];
/** Provided by the runtime or the test runner, or this repository's own package: never pre-bundled. */
const NOT_BUNDLED = /^(node:|cloudflare:|workerd:|vitest|@vitest\/|@cloudflare\/vitest-plugin|@open-oc\/)/;
/** `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")`, but not `import type`/`export type`. */
const SPECIFIER =
  /(?:^|[;\s])(?:import(?!\s+type\s)(?:[^"'`;]*?\sfrom)?|export(?!\s+type\s)[^"'`;]*?\sfrom)\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;

/**
 * The import specifiers of one source text, without type-only imports.
 * @param {string} source
 * @returns {string[]}
 */
export function importSpecifiers(source) {
  const found = new Set();
  for (const match of source.matchAll(SPECIFIER)) found.add(match[1] ?? match[2]);
  return [...found];
}

/** @param {string} specifier */
const isBare = (specifier) => !specifier.startsWith(".") && !specifier.startsWith("/");

/** The source file a relative import names, or undefined (a `.sql`, `.wasm` or `?raw` import is no module to scan). */
function resolveRelative(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier.replace(/\.js$/, ""));
  for (const ext of EXTENSIONS) {
    const file = base + ext;
    if (/\.(ts|tsx|mts|mjs|js)$/.test(file) && existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

/** Every workerd test file under `dir`. */
function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : testFiles(file);
    return WORKERD_TEST.test(entry.name) ? [file] : [];
  });
}

/**
 * The packages (names and subpaths, e.g. `hono/http-exception`) reached from the workerd test files, their setup
 * files and the workers' entry points, following relative imports, sorted.
 * @param {string} root the repository's root
 * @param {string[]} setupFiles the projects' setup files, relative to `root`
 * @returns {string[]}
 */
export function workerdDependencies(root, setupFiles) {
  const pending = [
    ...testFiles(path.join(root, TEST_DIR)),
    ...[...WORKER_MAINS, ...setupFiles].map((f) => path.join(root, f)),
  ];
  const seen = new Set(pending);
  const packages = new Set();
  while (pending.length > 0) {
    const file = /** @type {string} */ (pending.pop());
    for (const specifier of importSpecifiers(readFileSync(file, "utf8"))) {
      if (isBare(specifier)) {
        if (!NOT_BUNDLED.test(specifier)) packages.add(specifier);
        continue;
      }
      const next = resolveRelative(file, specifier);
      if (next && !seen.has(next)) {
        seen.add(next);
        pending.push(next);
      }
    }
  }
  return [...packages].sort();
}
