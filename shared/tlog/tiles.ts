// C2SP tlog-tiles (https://c2sp.org/tlog-tiles): the log's Merkle tree stored as tiles of 256 hashes, 8 tree levels
// each, so a proof reads O(log n) stored rows instead of every leaf. This file owns the tile geometry (which tile,
// how wide), the tile and entry-bundle paths and the bundle encoding; hand-written because they are the wire format.
// Proofs and appends over tiles are in tile-proofs.ts, a monitor's frontier in frontier.ts.

export type { Hash } from "./merkle";

/** Tree levels per tile: a tile's hashes are the roots of subtrees 8 levels below the tile's own root. */
export const TILE_HEIGHT = 8;
/** Hashes in a full tile (2^TILE_HEIGHT); a full tile is 8,192 bytes. */
export const TILE_WIDTH = 256;
/** Bytes per hash (SHA-256). */
export const HASH_SIZE = 32;
/** The spec's highest tile level. */
const MAX_LEVEL = 63;

/** A tile at `level` (0 holds leaf hashes), the `index`-th of its level, holding `width` hashes (256 = full). */
export interface TileRef {
  level: number;
  index: number;
  width: number;
}

/**
 * Key for maps of tile contents. A stored tile row holds the tile's current content (width × 32 bytes); a narrower
 * width of the same tile is its prefix, so one key serves every width.
 */
export const tileKey = (level: number, index: number): string => `${level}/${index}`;

export type TileContents = ReadonlyMap<string, Uint8Array>;

const isCount = (n: number) => Number.isSafeInteger(n) && n >= 0;

export function checkSize(size: number): void {
  if (!isCount(size)) throw new RangeError("a tree size is a non-negative integer");
}

function checkTile(level: number, index: number): void {
  if (!Number.isInteger(level) || level < 0 || level > MAX_LEVEL) throw new RangeError("a tile level is 0 to 63");
  if (!isCount(index)) throw new RangeError("a tile index is a non-negative integer");
}

/** Hashes stored at `level` in a tree of `size` leaves: its complete subtrees of 256^level leaves. */
export const levelSize = (size: number, level: number): number => Math.floor(size / TILE_WIDTH ** level);

/** How many hashes tile (level, index) holds in a tree of `size`: 256 when full, 0 when it does not exist yet. */
export function tileWidth(size: number, level: number, index: number): number {
  checkSize(size);
  checkTile(level, index);
  return Math.max(0, Math.min(TILE_WIDTH, levelSize(size, level) - index * TILE_WIDTH));
}

/** The partial tile of each level of a tree of `size` (width 1 to 255): the only tiles an append changes. */
export function edgeTiles(size: number): TileRef[] {
  checkSize(size);
  const edge: TileRef[] = [];
  for (let level = 0; levelSize(size, level) > 0; level++) {
    const width = levelSize(size, level) % TILE_WIDTH;
    if (width > 0) edge.push({ level, index: levelSize(size, level + 1), width });
  }
  return edge;
}

// Paths. N is zero-padded 3-digit groups, all but the last prefixed with `x` (1234067 → x001/x234/067), so tiles fit
// a file system with no file/directory clash.
function indexPath(index: number): string {
  const digits = String(index);
  const padded = digits.padStart(Math.ceil(digits.length / 3) * 3, "0");
  const groups = padded.match(/.{3}/g) ?? [];
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

const widthSuffix = (width: number) => (width === TILE_WIDTH ? "" : `.p/${width}`);

function checkWidth(width: number): void {
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) throw new RangeError("a tile width is 1 to 256");
}

/** `tile/<L>/<N>[.p/<W>]`, relative to the log's prefix; a full tile has no `.p/`. */
export function tilePath(ref: TileRef): string {
  checkTile(ref.level, ref.index);
  checkWidth(ref.width);
  return `tile/${ref.level}/${indexPath(ref.index)}${widthSuffix(ref.width)}`;
}

/** `tile/entries/<N>[.p/<W>]`: the entry bundle beside level-0 tile N. */
export function entriesPath(index: number, width: number): string {
  checkTile(0, index);
  checkWidth(width);
  return `tile/entries/${indexPath(index)}${widthSuffix(width)}`;
}

export type ParsedTilePath =
  | { kind: "hash"; level: number; index: number; width: number }
  | { kind: "entries"; index: number; width: number };

const PATH = /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/){0,5}[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/**
 * A tile or entry-bundle path (relative to the prefix, from `tile/`), or undefined unless it is the one canonical
 * spelling: as Go's sumdb/tlog does, anything that does not print back to itself (`x000/001`, a W of 256) is refused.
 */
export function parseTilePath(path: string): ParsedTilePath | undefined {
  const m = PATH.exec(path);
  if (!m?.[1] || !m[2]) return undefined;
  const index = Number(m[2].replaceAll("x", "").replaceAll("/", ""));
  const width = m[3] === undefined ? TILE_WIDTH : Number(m[3]);
  if (!Number.isSafeInteger(index) || width > TILE_WIDTH) return undefined;
  if (m[1] === "entries") return entriesPath(index, width) === path ? { kind: "entries", index, width } : undefined;
  const level = Number(m[1]);
  if (level > MAX_LEVEL) return undefined;
  return tilePath({ level, index, width }) === path ? { kind: "hash", level, index, width } : undefined;
}

// Entry bundles: each entry as a big-endian uint16 length, then its bytes.
const MAX_ENTRY = 0xffff;

export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const e of entries) {
    if (e.length > MAX_ENTRY) throw new RangeError("an entry in a bundle is at most 65535 bytes");
    total += 2 + e.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const e of entries) {
    out[at] = e.length >> 8;
    out[at + 1] = e.length & 0xff;
    out.set(e, at + 2);
    at += 2 + e.length;
  }
  return out;
}

/** The bundle's entries, or undefined when a length or a body is cut short. */
export function decodeEntryBundle(bytes: Uint8Array): Uint8Array[] | undefined {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) return undefined;
    const length = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
    if (at + 2 + length > bytes.length) return undefined;
    entries.push(bytes.slice(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}
