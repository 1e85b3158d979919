#!/usr/bin/env node
// `npm run kit:sizes`: what each entry point of @open-oc/kit costs a site's bundle, minified and gzipped, as the
// kit's own code (its dependencies left as imports: what the kit adds beside a jose the site may already have) and
// with its dependencies bundled in (what a site without them pays). Prints the README's table (packages/kit/README.md);
// test/kit/package-size.node.test.ts holds the consumer verifier to its budget.
import path from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { ENTRIES, importPath, nobleSecp256k1 } from "./entries.mjs";

const root = path.join(import.meta.dirname, "..", "..");

/** Minified and gzipped bytes of one entry, bundled as a site's bundler would (esbuild, minify, ESM). */
export async function measure(entry, { withDependencies }) {
  const result = await build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    minify: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    // hono is imported for its types only; anything else is either the kit's (own) or its dependencies'.
    external: withDependencies ? ["hono"] : undefined,
    packages: withDependencies ? undefined : "external",
    plugins: [nobleSecp256k1],
    logLevel: "error",
  });
  const code = result.outputFiles[0].contents;
  return { min: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = ["| Import | Own code (min / gzip) | With dependencies (min / gzip) |", "| --- | --- | --- |"];
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const own = await measure(entry, { withDependencies: false });
    const all = await measure(entry, { withDependencies: true });
    rows.push(`| \`${importPath(name)}\` | ${kib(own.min)} / ${kib(own.gzip)} | ${kib(all.min)} / ${kib(all.gzip)} |`);
  }
  console.log(rows.join("\n"));
}
