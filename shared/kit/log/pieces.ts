// Reading a log's pieces for a monitor (kit/log/monitor.ts): hash tiles and entry bundles at exactly the width the
// verified checkpoint requires (tlog-tiles: a client fetches no other partial tile), falling back to the full tile,
// whose prefix a partial one is, as a log may delete partial tiles once they fill. A piece that is absent or not
// well-formed is answered with why, for the monitor's `tile_missing`. Entry bundles are served gzip-compressed
// (tlog-tiles: `Content-Encoding: gzip`, issue 48); an HTTP client decodes them, and bytes still gzipped (a fetch
// that does not decode, a mirror that stored what it was sent) are decompressed here.
import type { Hash } from "../../tlog/merkle";
import { decodeEntryBundle, entriesPath, HASH_SIZE, TILE_WIDTH, tilePath, tileWidth } from "../../tlog/tiles";

/** The log's pieces by their path under its prefix (`checkpoint`, `tile/0/000.p/7`, `tile/entries/x001/234`). */
export interface LogReader {
  /** The bytes, or undefined when there are none (HTTP 404, no such file); throws when the log cannot be read. */
  read(path: string): Promise<Uint8Array | undefined>;
}

export type Get = LogReader["read"];

export const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Tile (level, index)'s first `width` hashes, or why they cannot be read. */
export async function readTile(get: Get, level: number, index: number, width: number): Promise<Uint8Array | string> {
  const path = tilePath({ level, index, width });
  const exact = await get(path);
  const bytes = exact ?? (width < TILE_WIDTH ? await get(tilePath({ level, index, width: TILE_WIDTH })) : undefined);
  if (!bytes) return `${path} is not served`;
  const expected = (exact ? width : TILE_WIDTH) * HASH_SIZE;
  if (bytes.length !== expected) return `${path} is ${bytes.length} bytes, not ${expected}`;
  return bytes.subarray(0, width * HASH_SIZE);
}

/** Gzip's magic number and its one compression method (RFC 1952): 0x1f 0x8b 0x08. */
const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08;

/** The bytes gzip-decompressed, or undefined when they are no gzip stream. */
async function gunzip(bytes: Uint8Array): Promise<Uint8Array | undefined> {
  try {
    const stream = new Response(new Uint8Array(bytes)).body?.pipeThrough(new DecompressionStream("gzip"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch {
    return undefined;
  }
}

/**
 * A bundle's entries from its bytes as read: decoded as they are, or once gunzipped when they are gzip and do not
 * decode to `width` entries as they are (a bundle's first two bytes are a length: 0x1f8b could begin one).
 */
async function bundleEntries(bytes: Uint8Array, width: number): Promise<Uint8Array[] | undefined> {
  const plain = decodeEntryBundle(bytes);
  if ((plain && plain.length >= width) || !isGzip(bytes)) return plain;
  const inflated = await gunzip(bytes);
  return (inflated && decodeEntryBundle(inflated)) ?? plain;
}

/** Entry bundle `index`'s first `width` entries, or why they cannot be read. */
export async function readBundle(get: Get, index: number, width: number): Promise<Uint8Array[] | string> {
  const path = entriesPath(index, width);
  const exact = await get(path);
  const bytes = exact ?? (width < TILE_WIDTH ? await get(entriesPath(index, TILE_WIDTH)) : undefined);
  if (!bytes) return `${path} is not served`;
  const entries = await bundleEntries(bytes, width);
  if (!entries || entries.length < width || (exact && entries.length !== width)) {
    return `${path} does not hold ${width} length-prefixed entries`;
  }
  return entries.slice(0, width);
}

/**
 * The first of leaves [from, size) whose entry (`hashes[i - from]`) is another leaf than its level-0 tile holds, if
 * the tiles can tell: only the message of a root mismatch, as the tiles are the server's word, not a proof.
 */
export async function firstStray(get: Get, from: number, size: number, hashes: Hash[]): Promise<number | undefined> {
  for (let index = Math.floor(from / TILE_WIDTH); index * TILE_WIDTH < size; index++) {
    const tile = await readTile(get, 0, index, tileWidth(size, 0, index));
    if (typeof tile === "string") return undefined;
    for (let i = Math.max(from, index * TILE_WIDTH); i < Math.min(size, (index + 1) * TILE_WIDTH); i++) {
      const at = (i - index * TILE_WIDTH) * HASH_SIZE;
      if (!same(tile.subarray(at, at + HASH_SIZE), hashes[i - from] as Hash)) return i;
    }
  }
  return undefined;
}
