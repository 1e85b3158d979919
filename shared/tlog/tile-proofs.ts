// Roots, RFC 9162 proofs and appends computed from C2SP tiles (tiles.ts) instead of every leaf. Each hash of a proof
// is MTH of a range, which is the fold of the range's aligned complete subtrees; a subtree of height h is read from
// the tile level h/8 and hashed from 2^(h mod 8) consecutive entries there. Reads come in two phases: `tilesFor*`
// lists exactly the tiles `*FromTiles` reads (O(log n) of them), so a server fetches them in one query.
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes as concat } from "@noble/hashes/utils.js";
import { type Hash, nodeHash } from "./merkle";
import {
  checkSize,
  HASH_SIZE,
  levelSize,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileContents,
  type TileRef,
  tileKey,
  tileWidth,
} from "./tiles";

/** A complete subtree: leaves [position·2^height, (position+1)·2^height). */
export interface Subtree {
  height: number;
  position: number;
}

/** Where a subtree's hashes sit: `count` entries of tile (level, index) from `offset` (count divides 256). */
function placeOf({ height, position }: Subtree) {
  const level = Math.floor(height / TILE_HEIGHT);
  const count = 2 ** (height % TILE_HEIGHT);
  const first = position * count;
  return { level, index: Math.floor(first / TILE_WIDTH), offset: first % TILE_WIDTH, count };
}

/**
 * [start, end) as aligned complete subtrees, left to right, each the largest that fits. For the ranges a proof
 * names (start a multiple of a power of two ≥ end − start), MTH(D[start:end]) is their hashes folded from the right.
 */
export function subtreesOf(start: number, end: number): Subtree[] {
  const out: Subtree[] = [];
  while (start < end) {
    let height = 0;
    while (start % 2 ** (height + 1) === 0 && start + 2 ** (height + 1) <= end) height++;
    out.push({ height, position: start / 2 ** height });
    start += 2 ** height;
  }
  return out;
}

/** MTH of consecutive complete subtrees of equal height (a power-of-two count): pairwise, level by level. */
function treeHash(hashes: Hash[]): Hash {
  let row = hashes;
  while (row.length > 1) {
    const next: Hash[] = [];
    for (let i = 0; i < row.length; i += 2) next.push(nodeHash(row[i] as Hash, row[i + 1] as Hash));
    row = next;
  }
  return row[0] as Hash;
}

/** Entries [offset, offset+count) of a tile: only a prefix of a stored (possibly wider) row is ever read. */
function entriesOf(tiles: TileContents, level: number, index: number, offset: number, count: number): Hash[] {
  const key = tileKey(level, index);
  const bytes = tiles.get(key);
  if (!bytes) throw new Error(`tile ${key} is missing`);
  if (bytes.length % HASH_SIZE !== 0 || bytes.length > TILE_WIDTH * HASH_SIZE) {
    throw new Error(`tile ${key} is ${bytes.length} bytes: not a row of 32-byte hashes`);
  }
  if (bytes.length < (offset + count) * HASH_SIZE) {
    throw new Error(`tile ${key} holds ${bytes.length / HASH_SIZE} hashes; ${offset + count} are needed`);
  }
  const out: Hash[] = [];
  for (let i = offset; i < offset + count; i++) out.push(bytes.slice(i * HASH_SIZE, (i + 1) * HASH_SIZE));
  return out;
}

export function subtreeHash(s: Subtree, tiles: TileContents): Hash {
  const { level, index, offset, count } = placeOf(s);
  return treeHash(entriesOf(tiles, level, index, offset, count));
}

function rangeHash(start: number, end: number, tiles: TileContents): Hash {
  const hashes = subtreesOf(start, end).map((s) => subtreeHash(s, tiles));
  let h = hashes.pop() as Hash;
  while (hashes.length > 0) h = nodeHash(hashes.pop() as Hash, h);
  return h;
}

type Range = [start: number, end: number];

/** The tiles the ranges' hashes read, once each, at the width the tree of `size` gives them. */
function tilesOf(size: number, ranges: readonly Range[]): TileRef[] {
  const refs = new Map<string, TileRef>();
  for (const [start, end] of ranges) {
    for (const s of subtreesOf(start, end)) {
      const { level, index } = placeOf(s);
      const key = tileKey(level, index);
      if (!refs.has(key)) refs.set(key, { level, index, width: tileWidth(size, level, index) });
    }
  }
  return [...refs.values()];
}

/** The largest power of two strictly below n (n ≥ 2): RFC 9162's split. (Not via Math.log2: 2^52 + 1 rounds.) */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** PATH(index, D[0:size]) as ranges, in the RFC's order (the leaf's sibling first). */
function inclusionRanges(index: number, size: number): Range[] {
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw new RangeError("leaf index out of range");
  const out: Range[] = [];
  let lo = 0;
  let hi = size;
  while (hi - lo > 1) {
    const mid = lo + split(hi - lo);
    if (index < mid) {
      out.push([mid, hi]);
      hi = mid;
    } else {
      out.push([lo, mid]);
      lo = mid;
    }
  }
  return out.reverse();
}

/** PROOF(first, D[0:size]) as ranges, in the RFC's order (SUBPROOF's recursion unrolled). */
function consistencyRanges(first: number, size: number): Range[] {
  if (!Number.isSafeInteger(first) || first < 1 || first > size) throw new RangeError("first size out of range");
  const out: Range[] = [];
  let lo = 0;
  let hi = size;
  let complete = true; // SUBPROOF's b: the old tree's root is left out while it is a complete subtree on the left
  while (first !== hi) {
    const mid = lo + split(hi - lo);
    if (first <= mid) {
      out.push([mid, hi]);
      hi = mid;
    } else {
      out.push([lo, mid]);
      lo = mid;
      complete = false;
    }
  }
  if (!complete) out.push([lo, hi]);
  return out.reverse();
}

const rootRanges = (size: number): Range[] => (size === 0 ? [] : [[0, size]]);

export function tilesForRoot(size: number): TileRef[] {
  checkSize(size);
  return tilesOf(size, rootRanges(size));
}

/** MTH(D[0:size]); the empty tree's is SHA-256 of nothing. */
export function rootFromTiles(size: number, tiles: TileContents): Hash {
  checkSize(size);
  return size === 0 ? sha256(new Uint8Array()) : rangeHash(0, size, tiles);
}

export function tilesForInclusion(index: number, size: number): TileRef[] {
  checkSize(size);
  return tilesOf(size, inclusionRanges(index, size));
}

/** The audit path of leaf `index` in the tree of `size`, as merkle.ts `inclusionProof` gives it. */
export function inclusionFromTiles(index: number, size: number, tiles: TileContents): Hash[] {
  checkSize(size);
  return inclusionRanges(index, size).map(([start, end]) => rangeHash(start, end, tiles));
}

export function tilesForConsistency(first: number, size: number): TileRef[] {
  checkSize(size);
  return tilesOf(size, consistencyRanges(first, size));
}

/** That the tree of `first` is a prefix of the tree of `size`, as merkle.ts `consistencyProof` gives it. */
export function consistencyFromTiles(first: number, size: number, tiles: TileContents): Hash[] {
  checkSize(size);
  return consistencyRanges(first, size).map(([start, end]) => rangeHash(start, end, tiles));
}

/** The hash of leaf `index`, from its level-0 tile. */
export function leafFromTiles(index: number, tiles: TileContents): Hash {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError("leaf index out of range");
  return subtreeHash({ height: 0, position: index }, tiles);
}

export interface Integrated {
  size: number;
  /** Every tile whose content changed, with its whole new content (a full tile once, never again). */
  tiles: { level: number; index: number; hashes: Uint8Array }[];
  root: Hash;
}

/**
 * Appends leaf hashes to the tree of `size`, whose partial tiles (`edgeTiles(size)`) `edge` holds. Each tile that
 * fills up is hashed into the level above; tiles depend on the leaves alone, not on how they were batched.
 */
export function integrate(size: number, edge: TileContents, leaves: readonly Hash[]): Integrated {
  checkSize(size);
  if (!Number.isSafeInteger(size + leaves.length)) throw new RangeError("the tree would outgrow 2^53 leaves");
  if (leaves.some((h) => h.length !== HASH_SIZE)) throw new RangeError("a leaf hash is 32 bytes");
  const changed: Integrated["tiles"] = [];
  const emit = (level: number, index: number, row: Hash[]) => changed.push({ level, index, hashes: concat(...row) });
  let fresh: readonly Hash[] = leaves;
  for (let level = 0; fresh.length > 0; level++) {
    const before = levelSize(size, level);
    let index = Math.floor(before / TILE_WIDTH);
    let row: Hash[] = before % TILE_WIDTH === 0 ? [] : entriesOf(edge, level, index, 0, before % TILE_WIDTH);
    const up: Hash[] = [];
    for (const h of fresh) {
      row.push(h);
      if (row.length === TILE_WIDTH) {
        emit(level, index, row);
        up.push(treeHash(row));
        [row, index] = [[], index + 1];
      }
    }
    if (row.length > 0) emit(level, index, row);
    fresh = up;
  }
  const after = new Map(edge);
  for (const t of changed) after.set(tileKey(t.level, t.index), t.hashes);
  const grown = size + leaves.length;
  return { size: grown, tiles: changed, root: rootFromTiles(grown, after) };
}
