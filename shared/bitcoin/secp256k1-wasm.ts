// libsecp256k1 as WebAssembly (the build shipped in tiny-secp256k1 2.2.x) behind the verifier's curve interface.
// A maintained, constant-time C library, and 2-3x faster than pure JS inside workerd. The package's own JS loader
// reads the .wasm with Node's `fs`, so this wrapper instantiates an already compiled module itself: workerd refuses
// to compile WebAssembly from bytes at run time, but a `.wasm` import arrives there as a compiled WebAssembly.Module.
import type { Secp256k1Backend } from "./curve";

/** The build's ABI: fixed input buffers in linear memory (their addresses are exported globals), plain i32 calls. */
interface Exports {
  memory: WebAssembly.Memory;
  initializeContext(): void;
  /** Reads PUBLIC_KEY_INPUT (length given), SIGNATURE_INPUT (compact), HASH_INPUT; `strict` 1 = no normalizing. */
  verify(publicKeyLength: number, strict: number): number;
  /** Reads X_ONLY_PUBLIC_KEY_INPUT, SIGNATURE_INPUT, HASH_INPUT. */
  verifySchnorr(): number;
  /** Reads SIGNATURE_INPUT and HASH_INPUT; writes the key, `outputLength` bytes, to PUBLIC_KEY_INPUT. */
  recover(outputLength: number, recoveryId: number): number;
  /** Reads the key in PUBLIC_KEY_INPUT (`inputLength` bytes) and writes it back in `outputLength` bytes. */
  pointCompress(inputLength: number, outputLength: number): void;
  HASH_INPUT: WebAssembly.Global;
  SIGNATURE_INPUT: WebAssembly.Global;
  PUBLIC_KEY_INPUT: WebAssembly.Global;
  X_ONLY_PUBLIC_KEY_INPUT: WebAssembly.Global;
}

const FUNCTIONS = ["initializeContext", "verify", "verifySchnorr", "recover", "pointCompress"] as const;
const BUFFERS = { HASH_INPUT: 32, SIGNATURE_INPUT: 64, PUBLIC_KEY_INPUT: 65, X_ONLY_PUBLIC_KEY_INPUT: 32 } as const;

/**
 * Compressed keys (33 bytes) this isolate has seen, uncompressed (65 bytes). A verify parses its key first, and
 * parsing a compressed key takes a field square root (~30 µs of a ~220 µs verify in Node); an uncompressed key's
 * parse is a curve check. An agent signs every action with one key, so its registrations after the first skip the
 * root. The value is a pure function of the key: nothing here can be poisoned, only forgotten.
 */
const uncompressed = new Map<string, Uint8Array>();
const MAX_KEYS = 4096;

/** Forgets the uncompressed keys: the bench's BIP-322 row measures a key's first verify, as a sign-in is. */
export function forgetUncompressedKeys(): void {
  uncompressed.clear();
}

/** Thrown when the module cannot be instantiated: the verifier fails closed (no verdict without a curve). */
export class Secp256k1UnavailableError extends Error {
  override name = "Secp256k1UnavailableError";
}

/** What the build's `throwError` import raises for input it rejects (a key that is not on the curve, ...). */
class RejectedInput extends Error {}

function generateInt32(): number {
  try {
    return crypto.getRandomValues(new Int32Array(1))[0] ?? 0;
  } catch {
    return 0;
  }
}

/** Instantiates the compiled module (synchronous: no compilation happens here) and checks its ABI. */
export function instantiateSecp256k1(module: WebAssembly.Module): Secp256k1Backend {
  let exports: Exports;
  try {
    const instance = new WebAssembly.Instance(module, {
      // Seeds the context's blinding, which libsecp256k1 applies to secret-key operations only (signing, key
      // generation). This context never sees a secret: it verifies and recovers public keys. So at global scope,
      // where workerd refuses random values and the verifier is warmed (warm-up.ts), a zero seed is as good.
      "./rand.js": { generateInt32 },
      "./validate_error.js": {
        throwError: (code: number) => {
          throw new RejectedInput(`libsecp256k1 rejected its input (code ${code})`);
        },
      },
    });
    exports = checkAbi(instance.exports);
    exports.initializeContext();
  } catch (cause) {
    throw new Secp256k1UnavailableError("libsecp256k1 (WebAssembly) could not be instantiated; refusing to verify", {
      cause,
    });
  }
  return backend(exports);
}

function checkAbi(raw: WebAssembly.Exports): Exports {
  if (!(raw.memory instanceof WebAssembly.Memory)) throw new Error("no exported memory");
  for (const name of FUNCTIONS) if (typeof raw[name] !== "function") throw new Error(`no function ${name}`);
  for (const name of Object.keys(BUFFERS)) if (!(raw[name] instanceof WebAssembly.Global)) throw new Error(name);
  return raw as unknown as Exports;
}

function backend(wasm: Exports): Secp256k1Backend {
  // The build has no allocator and never grows its memory, so views made once stay attached.
  const view = (name: keyof typeof BUFFERS) => {
    const at = Number(wasm[name].value);
    return new Uint8Array(wasm.memory.buffer, at, BUFFERS[name]);
  };
  const hash = view("HASH_INPUT");
  const signature = view("SIGNATURE_INPUT");
  const publicKey = view("PUBLIC_KEY_INPUT");
  const xOnly = view("X_ONLY_PUBLIC_KEY_INPUT");
  // A rejected input is a failed check. Any other throw (a trap) propagates: the caller's verdict is "invalid".
  const guarded = (call: () => number): number => {
    try {
      return call();
    } catch (error) {
      if (error instanceof RejectedInput) return 0;
      throw error;
    }
  };
  const load = (target: Uint8Array, bytes: Uint8Array, length: number) => {
    if (bytes.length !== length) return false;
    target.set(bytes);
    return true;
  };

  /** The 65-byte form of a 33-byte key, from this isolate when it has it; undefined for a key off the curve. */
  const uncompress = (key: Uint8Array): Uint8Array | undefined => {
    const name = String.fromCharCode(...key);
    const known = uncompressed.get(name);
    if (known) return known;
    publicKey.set(key);
    const ok = guarded(() => {
      wasm.pointCompress(33, 65);
      return 1;
    });
    if (ok !== 1) return undefined;
    const full = publicKey.slice(0, 65);
    if (uncompressed.size >= MAX_KEYS) uncompressed.delete(uncompressed.keys().next().value as string);
    uncompressed.set(name, full);
    return full;
  };

  return {
    verifyEcdsa(sig, digest, compressedOrFull) {
      if (compressedOrFull.length !== 33 && compressedOrFull.length !== 65) return false;
      const key = compressedOrFull.length === 33 ? uncompress(compressedOrFull) : compressedOrFull;
      if (!key || !load(signature, sig, 64) || !load(hash, digest, 32)) return false;
      publicKey.set(key);
      // strict = 1: the caller already refused high S, and libsecp256k1's verify requires low S as well.
      return guarded(() => wasm.verify(key.length, 1)) === 1;
    },
    verifySchnorr(sig, message, key) {
      if (!load(signature, sig, 64) || !load(hash, message, 32) || !load(xOnly, key, 32)) return false;
      return guarded(() => wasm.verifySchnorr()) === 1;
    },
    recoverPublicKey(sig, recovery, digest, compressed) {
      if (!Number.isInteger(recovery) || recovery < 0 || recovery > 3) return null;
      if (!load(signature, sig, 64) || !load(hash, digest, 32)) return null;
      const length = compressed ? 33 : 65;
      return guarded(() => wasm.recover(length, recovery)) === 1 ? publicKey.slice(0, length) : null;
    },
  };
}
