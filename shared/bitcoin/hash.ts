// Hash and byte helpers shared by the Bitcoin address and signature verifiers, so every caller uses the same
// primitives: @noble/hashes, and for SHA-256 libsecp256k1's own once the isolate's module is up (secp256k1-wasm.ts).
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";

import { utf8 } from "../crypto/digest";

export { utf8 };

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** SHA-256 of `data`, or of its digest when `twice`. */
export type Sha256 = (data: Uint8Array, twice: boolean) => Uint8Array;

const nobleDigest: Sha256 = (data, twice) => (twice ? nobleSha256(nobleSha256(data)) : nobleSha256(data));
let digest = nobleDigest;

/**
 * Hashes with `impl` from now on in this isolate. The libsecp256k1 module offers its SHA-256 when instantiated: the
 * same function (a test holds the two to each other), 3-4x faster than JavaScript's on the verifier's short inputs.
 */
export function useSha256(impl: Sha256): void {
  digest = impl;
}

export function sha256(data: Uint8Array): Uint8Array {
  return digest(data, false);
}

export function sha256d(data: Uint8Array): Uint8Array {
  return digest(data, true);
}

export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

// SHA-256 state after sha256(tag) twice (one 64-byte block), per tag: a handful of fixed tags, each absorbed once
// per isolate; every call then clones the state instead of hashing the prefix again.
const TAG_STATES = new Map<string, ReturnType<typeof nobleSha256.create>>();

/** BIP-340 tagged hash: sha256(sha256(tag) || sha256(tag) || data). */
export function taggedHash(tag: string, data: Uint8Array): Uint8Array {
  let state = TAG_STATES.get(tag);
  if (!state) {
    const tagHash = nobleSha256(utf8(tag));
    state = nobleSha256.create().update(tagHash).update(tagHash);
    TAG_STATES.set(tag, state);
  }
  return state.clone().update(data).digest();
}

/** Bitcoin's CompactSize length prefix (the lengths here stay far below 2^32). */
export function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
}

/** Transaction id in display (RPC) byte order from a non-witness serialization. */
export function txidOf(rawTxWithoutWitness: Uint8Array): Uint8Array {
  return sha256d(rawTxWithoutWitness).reverse();
}
