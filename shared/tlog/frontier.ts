// A log's frontier (a "compact range" over [0, size)): the roots of its complete subtrees, one per set bit of the
// size, largest first. It is what a monitor keeps between checkpoints: fed the new leaves, it yields the next root
// to compare with the next checkpoint, trusting no proof; a writer or a monitor starts one from tiles.
import { sha256 } from "@noble/hashes/sha2.js";
import { type Hash, nodeHash } from "./merkle";
import { subtreeHash, subtreesOf, tilesForRoot } from "./tile-proofs";
import { checkSize, HASH_SIZE, type TileContents, type TileRef } from "./tiles";

export interface Frontier {
  size: number;
  /** The complete subtree hashes of [0, size), left to right (the binary decomposition of size). */
  hashes: Hash[];
}

export const emptyFrontier = (): Frontier => ({ size: 0, hashes: [] });

function bitCount(n: number): number {
  let bits = 0;
  for (; n > 0; n = Math.floor(n / 2)) bits += n % 2;
  return bits;
}

function checkFrontier(f: Frontier): void {
  checkSize(f.size);
  if (f.hashes.length !== bitCount(f.size)) throw new RangeError("a frontier holds one hash per set bit of its size");
}

/** The frontier after appending `leaves`: each leaf merges with the equal-sized subtrees it completes. */
export function extendFrontier(f: Frontier, leaves: readonly Hash[]): Frontier {
  checkFrontier(f);
  if (!Number.isSafeInteger(f.size + leaves.length)) throw new RangeError("the tree would outgrow 2^53 leaves");
  const hashes = [...f.hashes];
  let size = f.size;
  for (const leaf of leaves) {
    if (leaf.length !== HASH_SIZE) throw new RangeError("a leaf hash is 32 bytes");
    let h = leaf;
    // The trailing one bits of the old size are the subtrees of 1, 2, 4, … leaves the new one completes.
    for (let n = size; n % 2 === 1; n = Math.floor(n / 2)) h = nodeHash(hashes.pop() as Hash, h);
    hashes.push(h);
    size += 1;
  }
  return { size, hashes };
}

/** MTH(D[0:size]): the subtrees folded from the right; the empty tree's is SHA-256 of nothing. */
export function frontierRoot(f: Frontier): Hash {
  checkFrontier(f);
  const hashes = [...f.hashes];
  let h = hashes.pop();
  if (!h) return sha256(new Uint8Array());
  while (hashes.length > 0) h = nodeHash(hashes.pop() as Hash, h);
  return h;
}

/** The tiles `frontierFromTiles` reads: the same as the root's, as the root is the frontier folded. */
export const tilesForFrontier = (size: number): TileRef[] => tilesForRoot(size);

export function frontierFromTiles(size: number, tiles: TileContents): Frontier {
  checkSize(size);
  return { size, hashes: subtreesOf(0, size).map((s) => subtreeHash(s, tiles)) };
}
