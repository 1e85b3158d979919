// The libsecp256k1 module for Node, where `.wasm` cannot be imported but compiling bytes is allowed: stands in for
// secp256k1-module.ts in the Node test project (vitest alias) and in the kit build (esbuild plugin), which serve
// the `oc` CLI and Node integrators. Reads wasm/secp256k1.wasm synchronously, so the verifier stays synchronous.
import type { Secp256k1Backend } from "./curve";
import { instantiateSecp256k1, Secp256k1UnavailableError } from "./secp256k1-wasm";

interface NodeBuiltins {
  fs: { readFileSync(path: URL): Uint8Array };
  module: { createRequire(from: string): { resolve(id: string): string } };
  url: { pathToFileURL(path: string): URL };
}

// This file is type-checked with the workers' types (no @types/node), so the few Node APIs are declared here.
type GetBuiltin = <K extends keyof NodeBuiltins>(id: `node:${K}`) => NodeBuiltins[K];
type ModuleFromBytes = new (bytes: Uint8Array) => WebAssembly.Module;

let instance: Secp256k1Backend | undefined;

export function defaultSecp256k1(): Secp256k1Backend {
  instance ??= instantiateSecp256k1(compile());
  return instance;
}

function compile(): WebAssembly.Module {
  const { process } = globalThis as { process?: { getBuiltinModule?: GetBuiltin } };
  const builtin = process?.getBuiltinModule;
  if (!builtin) throw new Secp256k1UnavailableError("libsecp256k1: needs Node 20.16+ (process.getBuiltinModule)");
  try {
    // Found through the repository's own exports ("open-oc/secp256k1.wasm"), which resolve from any file inside it:
    // this source and the scripts' in-memory bundles. (The kit's package verifies with @noble/curves instead.)
    const path = builtin("node:module")
      .createRequire(import.meta.url)
      .resolve("open-oc/secp256k1.wasm");
    const file = builtin("node:url").pathToFileURL(path);
    return new (WebAssembly.Module as unknown as ModuleFromBytes)(builtin("node:fs").readFileSync(file));
  } catch (cause) {
    throw new Secp256k1UnavailableError("libsecp256k1 (WebAssembly) could not be read or compiled", { cause });
  }
}
