// RFC 9162 §2.1 for the independent tile client: the Merkle tree hashes, and the verifiers of inclusion (§2.1.3.2) and
// consistency (§2.1.4.2) proofs, written from the RFC's text and checked against the RFC 6962 reference vectors. Nothing
// here comes from the log's own code (shared/, workers/): a test that shares the server's hashing proves nothing.
import { sha256 } from "@noble/hashes/sha2.js";

export const HASH_SIZE = 32;

/** MTH({}) = SHA-256() */
export const EMPTY_ROOT: Uint8Array = sha256(new Uint8Array(0));

/** MTH({d}) = SHA-256(0x00 || d) */
export function leafHash(entry: Uint8Array): Uint8Array {
  const input = new Uint8Array(1 + entry.length);
  input.set(entry, 1);
  return sha256(input);
}

/** SHA-256(0x01 || left || right) */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const input = new Uint8Array(1 + 2 * HASH_SIZE);
  input[0] = 0x01;
  input.set(left, 1);
  input.set(right, 1 + HASH_SIZE);
  return sha256(input);
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

// Sizes and indices are plain numbers up to 2^53, so no 32-bit bit operators anywhere below.
const half = (n: number) => Math.floor(n / 2);
const odd = (n: number) => n % 2 === 1;
const isCount = (n: number) => Number.isSafeInteger(n) && n >= 0;

export function isPowerOfTwo(n: number): boolean {
  if (!Number.isSafeInteger(n) || n < 1) return false;
  let m = n;
  while (m % 2 === 0) m /= 2;
  return m === 1;
}

/** The k of RFC 9162 §2.1.1: the largest power of two smaller than n (n > 1), so that k < n <= 2k. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

const wellFormed = (hashes: Uint8Array[]) => hashes.every((h) => h.length === HASH_SIZE);

/** RFC 9162 §2.1.3.2: does `proof` show the leaf hash at `index` in the tree of `size` leaves with `root`? */
export function verifyInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!isCount(index) || !isCount(size) || index >= size) return false;
  if (!wellFormed([leaf, root, ...proof])) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      // Climb past the levels where this node has no right sibling (the tree's ragged right edge).
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(r, root);
}

/**
 * RFC 9162 §2.1.4.2: is the tree of `second` leaves with `secondRoot` an append-only extension of the tree of `first`
 * leaves with `firstRoot`? The RFC defines proofs for 0 < first < second; the two edges are decided here as the
 * definitions imply: equal sizes need an empty proof and equal roots, and the empty tree (whose only root is
 * SHA-256 of nothing) is a prefix of every tree, with an empty proof.
 */
export function verifyConsistency(
  first: number,
  second: number,
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
  proof: Uint8Array[],
): boolean {
  if (!isCount(first) || !isCount(second) || first > second) return false;
  if (!wellFormed([firstRoot, secondRoot, ...proof])) return false;
  if (first === second) return proof.length === 0 && equalBytes(firstRoot, secondRoot);
  if (first === 0) return proof.length === 0 && equalBytes(firstRoot, EMPTY_ROOT);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : proof;
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(fr, firstRoot) && equalBytes(sr, secondRoot);
}
