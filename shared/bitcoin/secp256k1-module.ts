// The libsecp256k1 module the verifier uses by default, for workerd: wrangler's default module rules, the vitest
// plugin and the esbuild bundles (loader "copy" plus a CompiledWasm module rule) all hand a `.wasm` import over as a
// compiled WebAssembly.Module. Node cannot import `.wasm`: the Node test project and the repository's scripts swap
// this file for secp256k1-module.node.ts, which compiles the same bytes; the kit's package swaps it for
// secp256k1-module.noble.ts (no binary to ship, and it runs wherever the package does).

import type { Secp256k1Backend } from "./curve";
import { instantiateSecp256k1 } from "./secp256k1-wasm";
import wasm from "./wasm/secp256k1.wasm";

let instance: Secp256k1Backend | undefined;

/** The isolate's libsecp256k1, instantiated on first use; throws Secp256k1UnavailableError if it cannot be. */
export function defaultSecp256k1(): Secp256k1Backend {
  instance ??= instantiateSecp256k1(wasm);
  return instance;
}
