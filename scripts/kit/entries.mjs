// The kit package's entry points (packages/kit/package.json "exports": `./consumer/hono` → dist/consumer-hono.*),
// by the source each is built from: read by the build (scripts/kit/build.mjs) and the size report (sizes.mjs).
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
};

/** The import path a site writes for an entry: `consumer-hono` → `@open-oc/kit/consumer/hono`. */
export const importPath = (name) => `@open-oc/kit/${name.replace("-", "/")}`;

const SHARED = new URL("../../shared/", import.meta.url);

/**
 * esbuild plugin: BIP-322 verification in the package runs on @noble/curves, not the service's libsecp256k1
 * WebAssembly (shared/bitcoin/secp256k1-module.noble.ts says why).
 */
export const nobleSecp256k1 = {
  name: "noble-secp256k1",
  setup(build) {
    const file = new URL("bitcoin/secp256k1-module.noble.ts", SHARED).pathname;
    build.onResolve({ filter: /\/secp256k1-module$/ }, () => ({ path: file }));
  },
};
