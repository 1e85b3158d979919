// The secp256k1 the kit's package (@open-oc/kit) verifies BIP-322 with, in place of secp256k1-module.ts
// (scripts/kit/build.mjs swaps it in): @noble/curves, audited pure JavaScript that the package already needs to sign
// envelopes, and the reference the service's libsecp256k1 is held equal to (test/shared/secp256k1-wasm*.test.ts).
// It runs in every runtime the package does (Node, Workers, browsers) with no 1 MB WebAssembly file to ship or
// find; its first use builds base-point tables (10+ ms), a cost an auditor's command pays once.
import type { Secp256k1Backend } from "./curve";
import { nobleSecp256k1 } from "./curve-noble";

export function defaultSecp256k1(): Secp256k1Backend {
  return nobleSecp256k1;
}
