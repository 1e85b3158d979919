// C2SP tlog-tiles geometry and encodings (shared/tlog/tiles.ts, tile-proofs.ts, frontier.ts): the spec's path and
// tree-shape examples, strict path parsing, entry bundles, the frontier against merkle.ts, and that a proof at any
// size up to 2^40 names few tiles, fast, and is right (checked with merkle.ts's verifiers over synthetic tiles).
import { bytesToHex } from "@noble/hashes/utils.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyFrontier, extendFrontier, frontierFromTiles, frontierRoot } from "../../shared/tlog/frontier";
import { type Hash, leafHash, nodeHash, rootOf, verifyConsistency, verifyInclusion } from "../../shared/tlog/merkle";
import {
  consistencyFromTiles,
  inclusionFromTiles,
  integrate,
  leafFromTiles,
  rootFromTiles,
  tilesForConsistency,
  tilesForInclusion,
  tilesForRoot,
} from "../../shared/tlog/tile-proofs";
import {
  decodeEntryBundle,
  edgeTiles,
  encodeEntryBundle,
  entriesPath,
  parseTilePath,
  TILE_WIDTH,
  type TileRef,
  tileKey,
  tilePath,
  tileWidth,
} from "../../shared/tlog/tiles";

const leaves = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => leafHash(new TextEncoder().encode(`leaf ${from + i}`)));
/** Tile levels of a tree of `size`: 256^levels ≥ size. */
const levelsOf = (size: number) => {
  let levels = 1;
  while (TILE_WIDTH ** levels < size) levels++;
  return levels;
};
const byLevel = (refs: TileRef[]) => [...refs].sort((a, b) => a.level - b.level);

describe("paths", () => {
  it("encodes the spec's examples", () => {
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe("tile/0/x001/x234/067");
    expect(tilePath({ level: 0, index: 0, width: 256 })).toBe("tile/0/000");
    expect(tilePath({ level: 1, index: 1000, width: 256 })).toBe("tile/1/x001/000");
    expect(tilePath({ level: 0, index: 1234, width: 17 })).toBe("tile/0/x001/234.p/17");
    expect(tilePath({ level: 63, index: 999, width: 1 })).toBe("tile/63/999.p/1");
    expect(entriesPath(1234067, 256)).toBe("tile/entries/x001/x234/067");
    expect(entriesPath(0, 112)).toBe("tile/entries/000.p/112");
  });

  it("parses what it prints", () => {
    const ref = fc.record({
      level: fc.integer({ min: 0, max: 63 }),
      index: fc.oneof(fc.nat(2000), fc.maxSafeNat()),
      width: fc.integer({ min: 1, max: 256 }),
    });
    fc.assert(
      fc.property(ref, (r) => {
        expect(parseTilePath(tilePath(r))).toEqual({ kind: "hash", ...r });
        expect(parseTilePath(entriesPath(r.index, r.width))).toEqual({
          kind: "entries",
          index: r.index,
          width: r.width,
        });
      }),
    );
  });

  it("refuses every other spelling", () => {
    for (const path of [
      "tile/01/000", // leading zero in L
      "tile/0/x1/000", // short group
      "tile/0/001/x234", // x on the last group
      "tile/0/x001/234/567", // x missing on an inner group
      "tile/0/x000/001", // zero-padded beyond the groups the index needs
      "tile/0/00", // short group
      "tile/0/0000", // long group
      "tile/0/000.p/0",
      "tile/0/000.p/256", // a full tile has no .p/
      "tile/0/000.p/010",
      "tile/0/000.p/",
      "tile/64/000",
      "tile/-1/000",
      "tile/0/-01",
      "tile/0/000/",
      "tile/0/000/extra",
      "tile/0/000.p/17/extra",
      "/tile/0/000",
      "tile/entries/000.p/256",
      "tile/entries/x000/005",
      "tile/data/000",
      "tile/0/x009/x007/x199/x254/x740/993", // 2^53 + 1: not a safe integer
      "tile/0/000 ",
      "tile/0/0a0",
      "tile/ 0/000",
    ]) {
      expect(parseTilePath(path), path).toBeUndefined();
    }
  });

  it("refuses to print an impossible tile", () => {
    for (const ref of [
      { level: 64, index: 0, width: 1 },
      { level: 0, index: -1, width: 1 },
      { level: 0, index: 0.5, width: 1 },
      { level: 0, index: 0, width: 0 },
      { level: 0, index: 0, width: 257 },
    ]) {
      expect(() => tilePath(ref), JSON.stringify(ref)).toThrow(RangeError);
    }
  });
});

describe("the tree's shape", () => {
  it("a tree of 70,000: 273 full level-0 tiles, then 112; one full level-1 tile, then 17; then 1 at level 2", () => {
    expect(tileWidth(70_000, 0, 272)).toBe(256);
    expect(tileWidth(70_000, 0, 273)).toBe(112);
    expect(tileWidth(70_000, 0, 274)).toBe(0);
    expect(tileWidth(70_000, 1, 0)).toBe(256);
    expect(tileWidth(70_000, 1, 1)).toBe(17);
    expect(tileWidth(70_000, 2, 0)).toBe(1);
    expect(tileWidth(70_000, 3, 0)).toBe(0);
    expect(edgeTiles(70_000)).toEqual([
      { level: 0, index: 273, width: 112 },
      { level: 1, index: 1, width: 17 },
      { level: 2, index: 0, width: 1 },
    ]);
  });

  it("a tree of 256: a full level-0 tile and a level-1 tile of width 1", () => {
    expect(tileWidth(256, 0, 0)).toBe(256);
    expect(tileWidth(256, 1, 0)).toBe(1);
    expect(edgeTiles(256)).toEqual([{ level: 1, index: 0, width: 1 }]);
    expect(edgeTiles(0)).toEqual([]);
    expect(edgeTiles(1)).toEqual([{ level: 0, index: 0, width: 1 }]);
  });

  it("the root reads exactly the edge tiles, at any size", () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat(300_000), fc.maxSafeNat()), (size) => {
        expect(byLevel(tilesForRoot(size))).toEqual(edgeTiles(size));
      }),
    );
  });

  it("throws RangeError on sizes and indexes out of range", () => {
    for (const bad of [-1, 0.5, Number.NaN, 2 ** 53]) {
      expect(() => tileWidth(bad, 0, 0)).toThrow(RangeError);
      expect(() => edgeTiles(bad)).toThrow(RangeError);
      expect(() => tilesForRoot(bad)).toThrow(RangeError);
    }
    expect(() => tileWidth(10, 64, 0)).toThrow(RangeError);
    expect(() => tilesForInclusion(5, 5)).toThrow(RangeError);
    expect(() => tilesForInclusion(-1, 5)).toThrow(RangeError);
    expect(() => tilesForInclusion(1.5, 5)).toThrow(RangeError);
    expect(() => tilesForConsistency(0, 5)).toThrow(RangeError);
    expect(() => tilesForConsistency(6, 5)).toThrow(RangeError);
    expect(() => inclusionFromTiles(0, 0, new Map())).toThrow(RangeError);
    expect(() => consistencyFromTiles(1, 0, new Map())).toThrow(RangeError);
    expect(() => leafFromTiles(-1, new Map())).toThrow(RangeError);
    expect(() => integrate(-1, new Map(), [])).toThrow(RangeError);
    expect(() => integrate(0, new Map(), [new Uint8Array(31)])).toThrow(RangeError);
    expect(() => integrate(2 ** 53 - 1, new Map(), leaves(1))).toThrow(RangeError);
  });
});

// Hashing-heavy: a minute of room when the whole suite shares the machine.
describe("reads from tiles", { timeout: 60_000 }, () => {
  const log = integrate(0, new Map(), leaves(1000));
  const store = new Map(log.tiles.map((t) => [tileKey(t.level, t.index), t.hashes]));

  it("name a missing or too narrow tile", () => {
    expect(() => rootFromTiles(1000, new Map())).toThrow("tile 1/0 is missing");
    const narrow = new Map(store).set(tileKey(0, 3), store.get(tileKey(0, 3))?.slice(0, 32 * 231) as Uint8Array);
    expect(() => rootFromTiles(1000, narrow)).toThrow("tile 0/3 holds 231 hashes; 232 are needed");
    const ragged = new Map(store).set(tileKey(0, 3), new Uint8Array(33));
    expect(() => rootFromTiles(1000, ragged)).toThrow("not a row of 32-byte hashes");
    expect(() => leafFromTiles(1000, store)).toThrow("tile 0/3 holds 232 hashes; 233 are needed");
    expect(bytesToHex(leafFromTiles(999, store))).toBe(bytesToHex(leaves(1, 999)[0] as Hash));
  });

  it("an append needs its edge tiles", () => {
    expect(() => integrate(1000, new Map(), leaves(1, 1000))).toThrow("tile 0/3 is missing");
    expect(integrate(1000, store, []).root).toEqual(log.root);
  });
});

describe("entry bundles", () => {
  it("round trip", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 600 }), { maxLength: 40 }), (entries) => {
        expect(decodeEntryBundle(encodeEntryBundle(entries))).toEqual(entries);
      }),
    );
    const big = new Uint8Array(65_535).fill(7);
    const bytes = encodeEntryBundle([big, new Uint8Array()]);
    expect(bytes.slice(0, 2)).toEqual(Uint8Array.of(0xff, 0xff));
    expect(decodeEntryBundle(bytes)).toEqual([big, new Uint8Array()]);
  });

  it("refuse a cut length or body", () => {
    expect(decodeEntryBundle(Uint8Array.of(0))).toBeUndefined();
    expect(decodeEntryBundle(Uint8Array.of(0, 3, 1, 2))).toBeUndefined();
    expect(decodeEntryBundle(Uint8Array.of(0, 1, 9, 0))).toBeUndefined();
    expect(decodeEntryBundle(new Uint8Array())).toEqual([]);
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 50 }), { minLength: 1, maxLength: 10 }), fc.nat(), (e, cut) => {
        const bytes = encodeEntryBundle(e);
        expect(decodeEntryBundle(bytes.slice(0, cut % bytes.length))?.length ?? 0).toBeLessThan(e.length);
      }),
    );
  });

  it("throw RangeError on an entry over 65535 bytes", () => {
    expect(() => encodeEntryBundle([new Uint8Array(65_536)])).toThrow(RangeError);
  });
});

// Hashing-heavy: a minute of room when the whole suite shares the machine.
describe("the frontier", { timeout: 60_000 }, () => {
  const tree = fc
    .integer({ min: 0, max: 700 })
    .chain((n) => fc.tuple(fc.constant(leaves(n)), fc.array(fc.integer({ min: 0, max: n }), { maxLength: 6 })));

  it("extended over any split gives merkle.ts's root", () => {
    fc.assert(
      fc.property(tree, ([all, cuts]) => {
        let f = emptyFrontier();
        let at = 0;
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          f = extendFrontier(f, all.slice(at, cut));
          at = cut;
          expect(bytesToHex(frontierRoot(f))).toBe(bytesToHex(rootOf(all.slice(0, at))));
        }
        f = extendFrontier(f, all.slice(at));
        expect(bytesToHex(frontierRoot(f))).toBe(bytesToHex(rootOf(all)));
      }),
      { numRuns: 60 },
    );
  });

  it("read from tiles at any size, then extended, gives the final root", () => {
    fc.assert(
      fc.property(tree, ([all, cuts]) => {
        const at = cuts[0] ?? 0;
        const { tiles } = integrate(0, new Map(), all.slice(0, at));
        const store = new Map(tiles.map((t) => [tileKey(t.level, t.index), t.hashes]));
        const f = frontierFromTiles(at, store);
        expect(f).toEqual(extendFrontier(emptyFrontier(), all.slice(0, at)));
        expect(bytesToHex(frontierRoot(extendFrontier(f, all.slice(at))))).toBe(bytesToHex(rootOf(all)));
      }),
      { numRuns: 60 },
    );
  });

  it("refuses a frontier whose hashes do not match its size", () => {
    expect(() => frontierRoot({ size: 3, hashes: leaves(1) })).toThrow(RangeError);
    expect(() => extendFrontier({ size: 2, hashes: leaves(2) }, [])).toThrow(RangeError);
    expect(bytesToHex(frontierRoot(emptyFrontier()))).toBe(bytesToHex(rootOf([])));
  });
});

// A log of 2^40 leaves cannot be built, but one whose leaves are all the same hash can be served: every hash at tile
// level l is the root of 256^l equal leaves. The proofs from those tiles must still pass merkle.ts's verifiers, which
// check the proof's length and every step's side against the index and sizes.
// Hashing-heavy: a minute of room when the whole suite shares the machine.
describe("proofs at sizes up to 2^40", { timeout: 60_000 }, () => {
  const LEAF = leafHash(Uint8Array.of(42));
  const levelHash = [LEAF];
  for (let h = 1; h <= 48; h++) levelHash.push(nodeHash(levelHash[h - 1] as Hash, levelHash[h - 1] as Hash));
  const serve = (refs: TileRef[]) =>
    new Map(
      refs.map((r) => {
        const row = new Uint8Array(r.width * 32);
        for (let i = 0; i < r.width; i++) row.set(levelHash[8 * r.level] as Hash, i * 32);
        return [tileKey(r.level, r.index), row];
      }),
    );
  const size = fc.oneof(
    fc.integer({ min: 1, max: 2 ** 40 }),
    fc.integer({ min: 0, max: 40 }).map((k) => 2 ** k),
    fc
      .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: -2, max: 2 }))
      .map(([k, d]) => Math.max(1, 256 ** k + d)),
  );
  const pair = size.chain((n) => fc.tuple(fc.constant(n), fc.oneof(fc.nat(n - 1), fc.constant(n - 1))));

  it("name at most 2 tiles per level (one at the top), in microseconds", () => {
    const started = performance.now();
    fc.assert(
      fc.property(pair, ([n, i]) => {
        const bound = 2 * levelsOf(n) - 1;
        for (const refs of [tilesForRoot(n), tilesForInclusion(i, n), tilesForConsistency(i + 1, n)]) {
          expect(refs.length).toBeLessThanOrEqual(bound);
          for (const r of refs) expect(r.width).toBe(tileWidth(n, r.level, r.index));
        }
      }),
      { numRuns: 3000 },
    );
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("prove what merkle.ts's verifiers accept", () => {
    fc.assert(
      fc.property(pair, ([n, i]) => {
        const root = rootFromTiles(n, serve(tilesForRoot(n)));
        const inclusion = inclusionFromTiles(i, n, serve(tilesForInclusion(i, n)));
        expect(verifyInclusion(i, n, LEAF, inclusion, root)).toBe(true);
        const first = i + 1;
        const proof = consistencyFromTiles(first, n, serve(tilesForConsistency(first, n)));
        const firstRoot = rootFromTiles(first, serve(tilesForRoot(first)));
        expect(verifyConsistency(first, n, proof, firstRoot, root)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("the largest sizes are still cheap to plan", () => {
    const started = performance.now();
    const n = Number.MAX_SAFE_INTEGER;
    expect(byLevel(tilesForRoot(n))).toEqual(edgeTiles(n));
    expect(tilesForInclusion(n - 1, n).length).toBeLessThanOrEqual(2 * levelsOf(n) - 1);
    expect(tilesForConsistency(2 ** 52 + 1, n).length).toBeLessThanOrEqual(2 * levelsOf(n) - 1);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
