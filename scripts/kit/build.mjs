#!/usr/bin/env node
// `npm run build:kit` (also `prepare`): bundles the kit's entry points to plain ESM in .build/kit/ for sites and
// packages that install this one (Node cannot import .ts; devDependencies such as esbuild are not installed
// there). Dependencies (jose, hono, @scure/*, @noble/*) stay imports; types are the TypeScript sources.
import { rmSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { nodeSecp256k1 } from "../lib/node-secp256k1.mjs";

const root = path.join(import.meta.dirname, "..", "..");
export const ENTRIES = {
  consumer: "shared/kit/consumer/index.ts",
  "consumer-hono": "shared/kit/consumer/hono.ts",
  "consumer-node": "shared/kit/consumer/node.ts",
  challenge: "shared/kit/challenge/index.ts",
  stake: "shared/kit/stake/index.ts",
  "stake-hono": "shared/kit/stake/hono.ts",
  "stake-node": "shared/kit/stake/node.ts",
  fresh: "shared/kit/fresh/index.ts",
  "fresh-hono": "shared/kit/fresh/hono.ts",
  "fresh-node": "shared/kit/fresh/node.ts",
  webhooks: "shared/kit/webhooks/index.ts",
  envelopes: "shared/kit/envelopes/index.ts",
  node: "shared/kit/node-entry.ts",
};

// A clean folder: chunk names are content hashes, so old ones would pile up.
rmSync(path.join(root, ".build", "kit"), { recursive: true, force: true });
await build({
  entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, path.join(root, file)])),
  outdir: path.join(root, ".build", "kit"),
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  packages: "external",
  // The envelope kit verifies BIP-322 signatures (verifyBundle) for Node: libsecp256k1 from its bytes.
  plugins: [nodeSecp256k1],
  logLevel: "error",
});
console.log(`built .build/kit/{${Object.keys(ENTRIES).join(",")}}.mjs`);
