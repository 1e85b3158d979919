// An independent C2SP tlog-tiles client for tests, written only from the specs (c2sp.org/tlog-tiles, tlog-checkpoint,
// signed-note; RFC 9162 §2.1): it verifies a log's checkpoint, reads its tiles and entry bundles, and computes every
// root and proof itself. It imports nothing from shared/ or workers/, so it cannot share a mistake with the server.
import { EMPTY_ROOT, equalBytes, HASH_SIZE, isPowerOfTwo, leafHash, nodeHash, splitPoint } from "./tile-client-merkle";
import { openSignedNote, parseCheckpoint, parseVerifierKey, TileClientError } from "./tile-client-note";

export { leafHash as entryLeafHash, verifyConsistency, verifyInclusion } from "./tile-client-merkle";
export { TileClientError, type TileClientReason } from "./tile-client-note";

export interface TileClientOptions {
  /** The URL under which `checkpoint` and `tile/…` live, ending in "/" (e.g. `${FLEET}/api/log/${projectId}/`). */
  prefix: string;
  /** Every request goes through this, so a caller can add a cookie or an authorization header. */
  fetch: (url: string) => Promise<Response>;
  /** The log's signed-note verifier key, "<name>+<key ID hex8>+<base64(0x01 || Ed25519 public key)>". */
  verifierKey: string;
  /** The checkpoint origin (first line) the log must sign. */
  origin: string;
}

export interface VerifiedCheckpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** The signed note text (the checkpoint body), final newline included. */
  text: string;
  extensions: string[];
}

/**
 * Tiles are read as of the largest checkpoint this client has verified (its "basis"): only that size's partial tiles
 * are ever fetched (tlog-tiles: "Clients MUST NOT fetch arbitrary partial tiles without verifying a checkpoint with a
 * size that requires their existence"), and every method accepts any size up to it, since a smaller tree's hashes
 * are all in the larger tree's tiles. A size beyond it is refused before anything is fetched.
 */
export interface TileClient {
  checkpoint(): Promise<VerifiedCheckpoint>;
  leafHash(index: number, size: number): Promise<Uint8Array>;
  /** The entry, once SHA-256(0x00 || entry) matched the level-0 tile. */
  entry(index: number, size: number): Promise<Uint8Array>;
  inclusionProof(index: number, size: number): Promise<Uint8Array[]>;
  consistencyProof(first: number, size: number): Promise<Uint8Array[]>;
  root(size: number): Promise<Uint8Array>;
  /** Every tile and entry-bundle path requested, relative to the prefix, in order. */
  readonly tilesFetched: string[];
}

const TILE_WIDTH = 256;
const MAX_LEVEL = 63;

/** tlog-tiles: N as zero-padded 3-digit path elements, all but the last beginning with "x" (1234067 → x001/x234/067). */
export function encodeTileIndex(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new TileClientError("out_of_range", `tile index ${n}`);
  const groups: string[] = [];
  let rest = n;
  do {
    groups.unshift(String(rest % 1000).padStart(3, "0"));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join("/");
}

/** `tile/<L>/<N>[.p/<W>]`, or `tile/entries/<N>[.p/<W>]` for an entry bundle; W = 256 is a full tile. */
export function tilePath(level: number | "entries", n: number, width = TILE_WIDTH): string {
  if (level !== "entries" && !(Number.isInteger(level) && level >= 0 && level <= MAX_LEVEL)) {
    throw new TileClientError("out_of_range", `tile level ${level}`);
  }
  if (!(Number.isInteger(width) && width >= 1 && width <= TILE_WIDTH)) {
    throw new TileClientError("out_of_range", `tile width ${width}`);
  }
  return `tile/${level}/${encodeTileIndex(n)}${width === TILE_WIDTH ? "" : `.p/${width}`}`;
}

/** Tile n of a level in the tree of `size` leaves holds min(256, floor(size / 256^level) − 256n) hashes. */
function tileWidth(level: number, n: number, size: number): number {
  return Math.min(TILE_WIDTH, Math.floor(size / TILE_WIDTH ** level) - n * TILE_WIDTH);
}

/** log2 of a power of two, counted rather than computed in floating point. */
function heightOf(n: number): number {
  let height = 0;
  for (let m = n; m > 1; m /= 2) height++;
  return height;
}

/** Exactly `count` big-endian uint16 length-prefixed entries, and nothing after them. */
function parseBundle(bytes: Uint8Array, count: number, path: string): Uint8Array[] {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new TileClientError("bad_entry_bundle", `${path}: truncated length`);
    const length = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
    if (at + 2 + length > bytes.length) throw new TileClientError("bad_entry_bundle", `${path}: truncated entry`);
    entries.push(bytes.slice(at + 2, at + 2 + length));
    at += 2 + length;
  }
  if (entries.length !== count) {
    throw new TileClientError("bad_entry_bundle", `${path}: ${entries.length} entries, width ${count}`);
  }
  return entries;
}

export function createTileClient(options: TileClientOptions): TileClient {
  if (!options.prefix.endsWith("/")) throw new TypeError("prefix must end in /");
  const verifier = parseVerifierKey(options.verifierKey);
  const tilesFetched: string[] = [];
  // Promises, so parallel branches of one proof share a fetch. Partial tiles are cached too: a path names its width,
  // and a tile of a given width never changes.
  const tiles = new Map<string, Promise<Uint8Array[]>>();
  const bundles = new Map<string, Promise<Uint8Array[]>>();
  const subtrees = new Map<string, Promise<Uint8Array>>();
  let basis: number | undefined;

  const memo = <T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> => {
    let hit = cache.get(key);
    if (!hit) {
      hit = load();
      cache.set(key, hit);
      hit.catch(() => cache.delete(key));
    }
    return hit;
  };

  async function download(path: string): Promise<Uint8Array | undefined> {
    tilesFetched.push(path);
    const response = await options.fetch(options.prefix + path);
    if (response.status === 404) return undefined;
    if (!response.ok) throw new TileClientError("http_error", `${response.status} for ${path}`);
    return new Uint8Array(await response.arrayBuffer());
  }

  /**
   * A tile or bundle of `width`. A log may delete a partial tile once its full tile exists (tlog-tiles "Partial
   * Tiles"), whose first `width` items are the same: the client falls back to it, as the spec allows.
   */
  async function resource<T>(
    level: number | "entries",
    n: number,
    width: number,
    parse: (bytes: Uint8Array, width: number, path: string) => T[],
  ): Promise<T[]> {
    const path = tilePath(level, n, width);
    const bytes = await download(path);
    if (bytes) return parse(bytes, width, path);
    const full = width < TILE_WIDTH ? tilePath(level, n) : undefined;
    const fallback = full ? await download(full) : undefined;
    if (!full || !fallback) throw new TileClientError("http_error", `404 for ${path}`);
    return parse(fallback, TILE_WIDTH, full).slice(0, width);
  }

  const parseTile = (bytes: Uint8Array, width: number, path: string) => {
    if (bytes.length !== width * HASH_SIZE) {
      throw new TileClientError("bad_tile", `${path}: ${bytes.length} bytes, width ${width}`);
    }
    return Array.from({ length: width }, (_, i) => bytes.slice(i * HASH_SIZE, (i + 1) * HASH_SIZE));
  };

  function tileOf(level: number, n: number): Promise<Uint8Array[]> {
    const width = tileWidth(level, n, basis ?? 0);
    if (width < 1) throw new TileClientError("out_of_range", `tile ${level}/${n} is empty at size ${basis}`);
    return memo(tiles, tilePath(level, n, width), () => resource(level, n, width, parseTile));
  }

  /** MTH of the complete subtree of 2^height leaves starting at leaf index·2^height, from the highest tile level below. */
  function subtree(height: number, index: number): Promise<Uint8Array> {
    return memo(subtrees, `${height}/${index}`, async () => {
      // Level-l tile hashes are the subtrees of height 8l (a level ≥ 1 hash is the MTH of a full tile below).
      const level = Math.floor(height / 8);
      const span = 2 ** (height - 8 * level);
      const start = index * span;
      const hashes = await tileOf(level, Math.floor(start / TILE_WIDTH));
      let row = hashes.slice(start % TILE_WIDTH, (start % TILE_WIDTH) + span);
      if (row.length !== span) throw new TileClientError("out_of_range", `subtree ${height}/${index}`);
      while (row.length > 1) {
        const below = row;
        row = Array.from({ length: below.length / 2 }, (_, i) =>
          nodeHash(below[2 * i] as Uint8Array, below[2 * i + 1] as Uint8Array),
        );
      }
      return row[0] as Uint8Array;
    });
  }

  /** RFC 9162 §2.1.1 MTH(D[lo:hi]), for any range the recursion from the root reaches. */
  async function mth(lo: number, hi: number): Promise<Uint8Array> {
    const n = hi - lo;
    if (n === 0) return EMPTY_ROOT;
    if (isPowerOfTwo(n) && lo % n === 0) return subtree(heightOf(n), lo / n);
    const k = splitPoint(n);
    const [left, right] = await Promise.all([mth(lo, lo + k), mth(lo + k, hi)]);
    return nodeHash(left, right);
  }

  /** RFC 9162 §2.1.3.1 PATH(m, D[lo:hi]). */
  async function path(m: number, lo: number, hi: number): Promise<Uint8Array[]> {
    if (hi - lo === 1) return [];
    const k = splitPoint(hi - lo);
    const [rest, sibling] =
      m < k
        ? await Promise.all([path(m, lo, lo + k), mth(lo + k, hi)])
        : await Promise.all([path(m - k, lo + k, hi), mth(lo, lo + k)]);
    return [...rest, sibling];
  }

  /** RFC 9162 §2.1.4.1 SUBPROOF(m, D[lo:hi], whole). */
  async function subproof(m: number, lo: number, hi: number, whole: boolean): Promise<Uint8Array[]> {
    if (m === hi - lo) return whole ? [] : [await mth(lo, hi)];
    const k = splitPoint(hi - lo);
    const [rest, sibling] =
      m <= k
        ? await Promise.all([subproof(m, lo, lo + k, whole), mth(lo + k, hi)])
        : await Promise.all([subproof(m - k, lo + k, hi, false), mth(lo, lo + k)]);
    return [...rest, sibling];
  }

  function checkSize(size: number, index?: number): void {
    if (!Number.isSafeInteger(size) || size < 0) throw new TileClientError("out_of_range", `size ${size}`);
    if (basis === undefined || size > basis) {
      throw new TileClientError("size_not_verified", `size ${size}, verified ${basis ?? "none"}`);
    }
    if (index !== undefined && !(Number.isSafeInteger(index) && index >= 0 && index < size)) {
      throw new TileClientError("out_of_range", `index ${index} of size ${size}`);
    }
  }

  return {
    tilesFetched,
    async checkpoint() {
      const response = await options.fetch(`${options.prefix}checkpoint`);
      if (!response.ok) throw new TileClientError("http_error", `${response.status} for checkpoint`);
      const text = openSignedNote(new Uint8Array(await response.arrayBuffer()), verifier);
      const checkpoint = parseCheckpoint(text);
      if (checkpoint.origin !== options.origin) {
        throw new TileClientError("wrong_origin", `${JSON.stringify(checkpoint.origin)}, not ${options.origin}`);
      }
      basis = Math.max(basis ?? 0, checkpoint.size);
      return { ...checkpoint, text };
    },
    async leafHash(index, size) {
      checkSize(size, index);
      return (await subtree(0, index)).slice();
    },
    async entry(index, size) {
      checkSize(size, index);
      const n = Math.floor(index / TILE_WIDTH);
      const width = tileWidth(0, n, basis ?? 0);
      const bundle = await memo(bundles, tilePath("entries", n, width), () =>
        resource("entries", n, width, parseBundle),
      );
      const entry = bundle[index % TILE_WIDTH] as Uint8Array;
      if (!equalBytes(leafHash(entry), await subtree(0, index))) {
        throw new TileClientError("entry_mismatch", `entry ${index} does not hash to its level-0 tile hash`);
      }
      return entry.slice();
    },
    async inclusionProof(index, size) {
      checkSize(size, index);
      return (await path(index, 0, size)).map((hash) => hash.slice());
    },
    async consistencyProof(first, size) {
      checkSize(size);
      if (!(Number.isSafeInteger(first) && first >= 0 && first <= size)) {
        throw new TileClientError("out_of_range", `first ${first} of size ${size}`);
      }
      // RFC 9162 defines proofs for 0 < first < size; at the two edges the proof is empty.
      const proof = first === 0 || first === size ? [] : await subproof(first, 0, size, true);
      return proof.map((hash) => hash.slice());
    },
    async root(size) {
      checkSize(size);
      return (await mth(0, size)).slice();
    },
  };
}
