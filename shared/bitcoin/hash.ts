// Hash and byte helpers shared by the Bitcoin address and signature verifiers.
// Thin wrappers over @noble/hashes so every caller uses the same primitives.
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";

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

export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

// SHA-256 state after sha256(tag) twice (one 64-byte block), per tag: a handful of fixed tags, each absorbed once
// per isolate; every call then clones the state instead of hashing the prefix again.
const TAG_STATES = new Map<string, ReturnType<typeof sha256.create>>();

/** BIP-340 tagged hash: sha256(sha256(tag) || sha256(tag) || data). */
export function taggedHash(tag: string, data: Uint8Array): Uint8Array {
  let state = TAG_STATES.get(tag);
  if (!state) {
    const tagHash = sha256(utf8(tag));
    state = sha256.create().update(tagHash).update(tagHash);
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
