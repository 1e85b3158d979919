// A Merkle tree in the Certificate Transparency style (RFC 9162 section 2.1): leaf = SHA-256(0x00 ‖ data), node =
// SHA-256(0x01 ‖ left ‖ right), the left subtree the largest power of two below the size. Pure and synchronous:
// the tree's root, inclusion and consistency proofs from leaf hashes, and their verification as the RFC gives it
// (2.1.3.2, 2.1.4.2), so a verifier needs no tree.
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes as concat } from "@noble/hashes/utils.js";

export type Hash = Uint8Array;

const LEAF = Uint8Array.of(0x00);
const NODE = Uint8Array.of(0x01);

export const leafHash = (data: Uint8Array): Hash => sha256(concat(LEAF, data));
export const nodeHash = (left: Hash, right: Hash): Hash => sha256(concat(NODE, left, right));

/** The largest power of two strictly below n (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]) over leaf hashes; the empty tree's root is SHA-256 of nothing. */
export function rootOf(leaves: readonly Hash[]): Hash {
  if (leaves.length === 0) return sha256(new Uint8Array());
  if (leaves.length === 1) return leaves[0] as Hash;
  const k = split(leaves.length);
  return nodeHash(rootOf(leaves.slice(0, k)), rootOf(leaves.slice(k)));
}

/** PATH(m, D[n]): the audit path of leaf `index` in the tree of `leaves`. */
export function inclusionProof(index: number, leaves: readonly Hash[]): Hash[] {
  if (!Number.isInteger(index) || index < 0 || index >= leaves.length) throw new RangeError("leaf index out of range");
  if (leaves.length === 1) return [];
  const k = split(leaves.length);
  return index < k
    ? [...inclusionProof(index, leaves.slice(0, k)), rootOf(leaves.slice(k))]
    : [...inclusionProof(index - k, leaves.slice(k)), rootOf(leaves.slice(0, k))];
}

function subproof(m: number, leaves: readonly Hash[], complete: boolean): Hash[] {
  const n = leaves.length;
  if (m === n) return complete ? [] : [rootOf(leaves)];
  const k = split(n);
  return m <= k
    ? [...subproof(m, leaves.slice(0, k), complete), rootOf(leaves.slice(k))]
    : [...subproof(m - k, leaves.slice(k), false), rootOf(leaves.slice(0, k))];
}

/** PROOF(m, D[n]): that the tree of the first `first` leaves is a prefix of the tree of `leaves`. */
export function consistencyProof(first: number, leaves: readonly Hash[]): Hash[] {
  if (!Number.isInteger(first) || first < 1 || first > leaves.length) throw new RangeError("first size out of range");
  return subproof(first, leaves, true);
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);
const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

/** The RFC's "right-shift fn and sn equally until LSB(fn) is set or fn is 0". */
function shiftToOdd(fn: number, sn: number): [number, number] {
  while (fn % 2 === 0 && fn !== 0) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return [fn, sn];
}

/** RFC 9162 2.1.3.2: does `proof` show the leaf hash at `index` in the tree of `size` with `root`? */
export function verifyInclusion(index: number, size: number, leaf: Hash, proof: readonly Hash[], root: Hash): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      [fn, sn] = shiftToOdd(fn, sn);
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && same(r, root);
}

/** RFC 9162 2.1.4.2: does `proof` show the tree of `first` (root `firstRoot`) is a prefix of the tree of `second`? */
export function verifyConsistency(
  first: number,
  second: number,
  proof: readonly Hash[],
  firstRoot: Hash,
  secondRoot: Hash,
): boolean {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 1 || first > second) return false;
  if (first === second) return proof.length === 0 && same(firstRoot, secondRoot);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Hash;
  let sr = path[0] as Hash;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      [fn, sn] = shiftToOdd(fn, sn);
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && same(fr, firstRoot) && same(sr, secondRoot);
}
