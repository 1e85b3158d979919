// libsecp256k1 as WebAssembly behind the verifier's curve interface: the project's own build of the maintained,
// constant-time C library (shared/bitcoin/wasm/, scripts/build-secp256k1-wasm.sh), 32-bit limbs so that every limb
// product is one native WebAssembly multiply: ~3.5x faster than tiny-secp256k1's build, ~12x faster than pure JS.
// workerd refuses to compile WebAssembly from bytes at run time, but a `.wasm` import arrives there as a compiled
// WebAssembly.Module, which this wrapper instantiates itself.
import type { Secp256k1Backend } from "./curve";
import { type Sha256, useSha256 } from "./hash";

/**
 * The build's ABI (wasm/secp256k1-abi.c): fixed input buffers in linear memory (their addresses are exported
 * globals), plain i32 calls answering 1 (yes) or 0 (no, or input libsecp256k1 refuses). No imports.
 */
interface Exports {
  memory: WebAssembly.Memory;
  /** libsecp256k1's self-test; traps if it fails. */
  initializeContext(): void;
  /** Reads PUBLIC_KEY_INPUT (length given), SIGNATURE_INPUT (compact), HASH_INPUT; `strict` 1 = no normalizing. */
  verify(publicKeyLength: number, strict: number): number;
  /** Reads X_ONLY_PUBLIC_KEY_INPUT, SIGNATURE_INPUT, HASH_INPUT. */
  verifySchnorr(): number;
  /** Reads SIGNATURE_INPUT and HASH_INPUT; writes the key, `outputLength` bytes, to PUBLIC_KEY_INPUT. */
  recover(outputLength: number, recoveryId: number): number;
  /** Reads the key in PUBLIC_KEY_INPUT (`inputLength` bytes) and writes it back in `outputLength` bytes. */
  pointCompress(inputLength: number, outputLength: number): number;
  /** libsecp256k1's SHA-256, streamed: start, write each piece put in DATA_INPUT, finish into DIGEST_OUTPUT. */
  sha256Start(): void;
  sha256Write(length: number): number;
  sha256Finish(twice: number): void;
  HASH_INPUT: WebAssembly.Global;
  SIGNATURE_INPUT: WebAssembly.Global;
  PUBLIC_KEY_INPUT: WebAssembly.Global;
  X_ONLY_PUBLIC_KEY_INPUT: WebAssembly.Global;
  DATA_INPUT: WebAssembly.Global;
  DIGEST_OUTPUT: WebAssembly.Global;
}

const FUNCTIONS = [
  "initializeContext",
  "verify",
  "verifySchnorr",
  "recover",
  "pointCompress",
  "sha256Start",
  "sha256Write",
  "sha256Finish",
] as const;
const BUFFERS = {
  HASH_INPUT: 32,
  SIGNATURE_INPUT: 64,
  PUBLIC_KEY_INPUT: 65,
  X_ONLY_PUBLIC_KEY_INPUT: 32,
  DATA_INPUT: 4096,
  DIGEST_OUTPUT: 32,
} as const;

/**
 * Compressed keys (33 bytes) this isolate has seen, uncompressed (65 bytes). A verify parses its key first, and
 * parsing a compressed key takes a field square root (~10 µs of a ~90 µs verify in workerd); an uncompressed key's
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

/** The module's curve operations, and its SHA-256. */
export type WasmSecp256k1 = Secp256k1Backend & { sha256: Sha256 };

/** Instantiates the compiled module (synchronous: no compilation happens here) and checks its ABI. */
export function instantiateSecp256k1(module: WebAssembly.Module): WasmSecp256k1 {
  let exports: Exports;
  try {
    // No imports: the build uses libsecp256k1's static context (verify and recover need no randomness), so it also
    // instantiates at global scope, where workerd refuses random values and the verifier is warmed (warm-up.ts).
    const instance = new WebAssembly.Instance(module, {});
    exports = checkAbi(instance.exports);
    exports.initializeContext();
  } catch (cause) {
    throw new Secp256k1UnavailableError("libsecp256k1 (WebAssembly) could not be instantiated; refusing to verify", {
      cause,
    });
  }
  // The verifier's hashing (hash.ts) uses the module's SHA-256 from here on; until here, noble's.
  const sha256 = sha256Of(exports);
  useSha256(sha256);
  return { ...backend(exports), sha256 };
}

/** Views of the build's fixed buffers. It has no allocator and never grows its memory, so they stay attached. */
function view(wasm: Exports, name: keyof typeof BUFFERS): Uint8Array {
  return new Uint8Array(wasm.memory.buffer, Number(wasm[name].value), BUFFERS[name]);
}

function sha256Of(wasm: Exports): Sha256 {
  const data = view(wasm, "DATA_INPUT");
  const digest = view(wasm, "DIGEST_OUTPUT");
  return (bytes, twice) => {
    wasm.sha256Start();
    for (let at = 0; at < bytes.length; at += data.length) {
      const piece = bytes.subarray(at, at + data.length);
      data.set(piece);
      wasm.sha256Write(piece.length);
    }
    wasm.sha256Finish(twice ? 1 : 0);
    return digest.slice();
  };
}

function checkAbi(raw: WebAssembly.Exports): Exports {
  if (!(raw.memory instanceof WebAssembly.Memory)) throw new Error("no exported memory");
  for (const name of FUNCTIONS) if (typeof raw[name] !== "function") throw new Error(`no function ${name}`);
  for (const name of Object.keys(BUFFERS)) if (!(raw[name] instanceof WebAssembly.Global)) throw new Error(name);
  return raw as unknown as Exports;
}

function backend(wasm: Exports): Secp256k1Backend {
  const hash = view(wasm, "HASH_INPUT");
  const signature = view(wasm, "SIGNATURE_INPUT");
  const publicKey = view(wasm, "PUBLIC_KEY_INPUT");
  const xOnly = view(wasm, "X_ONLY_PUBLIC_KEY_INPUT");
  // A trap (a failed self-test, API misuse) propagates: the caller fails closed.
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
    if (wasm.pointCompress(33, 65) !== 1) return undefined;
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
      return wasm.verify(key.length, 1) === 1;
    },
    verifySchnorr(sig, message, key) {
      if (!load(signature, sig, 64) || !load(hash, message, 32) || !load(xOnly, key, 32)) return false;
      return wasm.verifySchnorr() === 1;
    },
    recoverPublicKey(sig, recovery, digest, compressed) {
      if (!Number.isInteger(recovery) || recovery < 0 || recovery > 3) return null;
      if (!load(signature, sig, 64) || !load(hash, digest, 32)) return null;
      const length = compressed ? 33 : 65;
      return wasm.recover(length, recovery) === 1 ? publicKey.slice(0, length) : null;
    },
  };
}
