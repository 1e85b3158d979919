// esbuild plugin for bundles that Node runs (the kit, the scripts' in-memory TypeScript imports, the bench
// fixtures): Node cannot import the verifier's `.wasm` (workerd's compiled-module import), so every import of
// shared/bitcoin/secp256k1-module resolves to its Node twin, which compiles the same bytes (Node allows that).
import path from "node:path";

const NODE_MODULE = path.join(import.meta.dirname, "..", "..", "shared", "bitcoin", "secp256k1-module.node.ts");

export const nodeSecp256k1 = {
  name: "node-secp256k1",
  setup(build) {
    build.onResolve({ filter: /\/secp256k1-module$/ }, () => ({ path: NODE_MODULE }));
  },
};
