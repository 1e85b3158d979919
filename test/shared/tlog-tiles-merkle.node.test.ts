// Tiles against the reference (shared/tlog/merkle.ts): a log integrated in random batches to ~300,000 leaves gives, at
// every checkpoint, the root, audit paths and consistency proofs merkle.ts computes from all the leaves, read from
// exactly the tiles `tilesFor*` names at the widths it names; tiles depend on the leaves alone (any batching gives
// the same), and a tile once written only grows. merkle.ts is O(n) per call, so big sizes are sampled.
import { bytesToHex } from "@noble/hashes/utils.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  emptyFrontier,
  extendFrontier,
  frontierFromTiles,
  frontierRoot,
  tilesForFrontier,
} from "../../shared/tlog/frontier";
import {
  consistencyProof,
  type Hash,
  inclusionProof,
  leafHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from "../../shared/tlog/merkle";
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
import { edgeTiles, type TileContents, type TileRef, tileKey } from "../../shared/tlog/tiles";

type Store = Map<string, Uint8Array>;

const hex = (h: Hash) => bytesToHex(h);
const hexes = (hs: Hash[]) => hs.map(bytesToHex);
const leaf = (i: number) => leafHash(Uint8Array.of(i >>> 24, (i >>> 16) & 255, (i >>> 8) & 255, i & 255));

/** What a static tile server answers for `refs`: each tile at the width named, nothing else. */
function serve(store: Store, refs: TileRef[]): TileContents {
  const out = new Map<string, Uint8Array>();
  for (const r of refs) {
    const row = store.get(tileKey(r.level, r.index));
    if (row) out.set(tileKey(r.level, r.index), row.slice(0, r.width * 32));
  }
  return out;
}

const isPrefix = (a: Uint8Array, b: Uint8Array) => a.length <= b.length && a.every((v, i) => v === b[i]);

/** A writer: appends through `integrate`, handing it only its edge tiles, and checks no tile is ever rewritten. */
function append(store: Store, size: number, batch: Hash[]) {
  const result = integrate(size, serve(store, edgeTiles(size)), batch);
  for (const t of result.tiles) {
    const key = tileKey(t.level, t.index);
    const old = store.get(key);
    if (old && (old.length === 8192 || !isPrefix(old, t.hashes))) throw new Error(`tile ${key} rewritten`);
    store.set(key, t.hashes);
  }
  return result;
}

const singleBatch = (leaves: Hash[]): Store =>
  new Map(integrate(0, new Map(), leaves).tiles.map((t) => [tileKey(t.level, t.index), t.hashes]));

/** A seeded generator: the same log every run, so a failure names a reproducible size. */
function random(seed: number) {
  return (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n;
  };
}

const STOPS = [0, 1, 2, 255, 256, 257, 511, 512, 65_535, 65_536, 65_537, 70_000];
const BATCHES = [1, 7, 255, 256, 257, 1000];

interface Checkpoint {
  size: number;
  root: Hash;
  store: Store; // the tiles as they were at this size
}

// Hashing-heavy: a minute of room when the whole suite shares the machine.
describe("a log integrated in random batches", { timeout: 60_000 }, () => {
  const rnd = random(9162);
  const FINAL = 290_000 + Math.floor(rnd(20_000));
  const all: Hash[] = [];
  const checkpoints: Checkpoint[] = [];
  const store: Store = new Map();
  // Besides STOPS, a few big checkpoints are checked against merkle.ts too (each such call hashes the whole tree).
  const reference = new Set(STOPS);

  beforeAll(() => {
    for (let i = 0; i < FINAL; i++) all.push(leaf(i));
    let size = 0;
    let frontier = emptyFrontier();
    checkpoints.push({ size: 0, root: rootFromTiles(0, new Map()), store: new Map() });
    while (size < FINAL) {
      const pick = Math.floor(rnd(BATCHES.length + 1));
      let n = BATCHES[pick] ?? 1 + Math.floor(rnd(5000));
      const stop = STOPS.find((s) => s > size);
      n = Math.min(n, FINAL - size, stop === undefined ? n : stop - size);
      const batch = all.slice(size, size + n);
      const result = append(store, size, batch);
      frontier = extendFrontier(frontier, batch);
      size = result.size;
      // The root three ways: integrate's, from the tiles a reader is served, and the monitor's frontier.
      const served = rootFromTiles(size, serve(store, tilesForRoot(size)));
      if (hex(served) !== hex(result.root) || hex(frontierRoot(frontier)) !== hex(result.root)) {
        throw new Error(`roots differ at size ${size}`);
      }
      checkpoints.push({ size, root: result.root, store: new Map(store) });
    }
    const big = checkpoints.filter((c) => c.size > 100_000);
    for (let k = 0; k < 2; k++) reference.add((big[Math.floor(rnd(big.length))] as Checkpoint).size);
    reference.add(FINAL);
  }, 120_000);

  it("reaches every stop, the final size and many sizes between", () => {
    const sizes = checkpoints.map((c) => c.size);
    for (const s of [...STOPS, FINAL]) expect(sizes).toContain(s);
    expect(sizes.length).toBeGreaterThan(300);
  });

  it("has merkle.ts's root at every small checkpoint and at the sampled big ones", () => {
    for (const { size, root } of checkpoints) {
      if (size > 4096 && !reference.has(size)) continue;
      expect(hex(root), `size ${size}`).toBe(hex(rootOf(all.slice(0, size))));
    }
  });

  it("serves merkle.ts's audit paths and consistency proofs, from exactly the tiles named", () => {
    let previous = 0;
    for (const { size, store: then } of checkpoints) {
      if (size === 0 || (size > 4096 && !reference.has(size))) continue;
      const leaves = all.slice(0, size);
      const big = size > 4096;
      const indexes = big ? [Math.floor(rnd(size))] : [0, size - 1, Math.floor(rnd(size))];
      for (const i of indexes) {
        const proof = inclusionFromTiles(i, size, serve(then, tilesForInclusion(i, size)));
        expect(hexes(proof), `leaf ${i} of ${size}`).toEqual(hexes(inclusionProof(i, leaves)));
      }
      const firsts = big ? [previous || 1] : [previous || 1, 1, size, 1 + Math.floor(rnd(size))];
      for (const first of firsts) {
        const proof = consistencyFromTiles(first, size, serve(then, tilesForConsistency(first, size)));
        expect(hexes(proof), `${first} to ${size}`).toEqual(hexes(consistencyProof(first, leaves)));
      }
      previous = size;
    }
  });

  it("proves every checkpoint consistent with the one before, and sampled leaves included", () => {
    let before = checkpoints[0] as Checkpoint;
    for (const c of checkpoints.slice(1)) {
      const { size, root, store: then } = c;
      for (const i of [0, size - 1, Math.floor(rnd(size))]) {
        const proof = inclusionFromTiles(i, size, serve(then, tilesForInclusion(i, size)));
        expect(verifyInclusion(i, size, all[i] as Hash, proof, root), `leaf ${i} of ${size}`).toBe(true);
        expect(hex(leafFromTiles(i, then))).toBe(hex(all[i] as Hash));
      }
      if (before.size > 0) {
        const proof = consistencyFromTiles(before.size, size, serve(then, tilesForConsistency(before.size, size)));
        expect(verifyConsistency(before.size, size, proof, before.root, root), `${before.size} to ${size}`).toBe(true);
      }
      before = c;
    }
  });

  it("needs every tile it names: without any one of them, the read fails", () => {
    for (const { size, store: then } of checkpoints.filter((_, k) => k % 5 === 1)) {
      const i = Math.floor(rnd(size));
      const first = 1 + Math.floor(rnd(size));
      const reads: [TileRef[], (t: TileContents) => unknown][] = [
        [tilesForRoot(size), (t) => rootFromTiles(size, t)],
        [tilesForFrontier(size), (t) => frontierFromTiles(size, t)],
        [tilesForInclusion(i, size), (t) => inclusionFromTiles(i, size, t)],
        [tilesForConsistency(first, size), (t) => consistencyFromTiles(first, size, t)],
      ];
      for (const [refs, read] of reads) {
        for (const r of refs) {
          const without = refs.filter((x) => x !== r);
          expect(() => read(serve(then, without))).toThrow(`tile ${tileKey(r.level, r.index)} is missing`);
        }
      }
    }
  });

  it("reads an older size from today's wider tiles the same", () => {
    for (const { size, root, store: then } of checkpoints.filter((_, k) => k % 7 === 3)) {
      expect(hex(rootFromTiles(size, store))).toBe(hex(root));
      const i = Math.floor(rnd(size));
      const first = 1 + Math.floor(rnd(size));
      expect(hexes(inclusionFromTiles(i, size, store))).toEqual(
        hexes(inclusionFromTiles(i, size, serve(then, tilesForInclusion(i, size)))),
      );
      expect(hexes(consistencyFromTiles(first, size, store))).toEqual(
        hexes(consistencyFromTiles(first, size, serve(then, tilesForConsistency(first, size)))),
      );
    }
  });

  it("lets a monitor start from a trusted checkpoint's tiles and check the next ones on the leaves alone", () => {
    for (const [k, { size, store: then }] of checkpoints.entries()) {
      if (k % 7 !== 3) continue;
      const next = checkpoints[k + 1] ?? (checkpoints.at(-1) as Checkpoint);
      const frontier = extendFrontier(frontierFromTiles(size, then), all.slice(size, next.size));
      expect(hex(frontierRoot(frontier)), `${size} to ${next.size}`).toBe(hex(next.root));
    }
    const from = checkpoints[Math.floor(checkpoints.length / 3)] as Checkpoint;
    const frontier = extendFrontier(frontierFromTiles(from.size, store), all.slice(from.size));
    expect(hex(frontierRoot(frontier))).toBe(hex((checkpoints.at(-1) as Checkpoint).root));
  });

  it("only ever grows a tile: every earlier tile is a prefix of today's", () => {
    for (const { size, store: then } of checkpoints.filter((_, k) => k % 40 === 0)) {
      for (const [key, row] of then)
        expect(isPrefix(row, store.get(key) as Uint8Array), `${key} at ${size}`).toBe(true);
    }
  });

  it("holds the same tiles as one batch of all the leaves", () => {
    const one = singleBatch(all);
    expect([...one.keys()].sort()).toEqual([...store.keys()].sort());
    for (const [key, row] of one) expect(hex(row), key).toBe(hex(store.get(key) as Uint8Array));
  });
});

// Hashing-heavy: a minute of room when the whole suite shares the machine.
describe("batching", { timeout: 60_000 }, () => {
  it("leaf by leaf gives the tiles of one batch, across tile and level boundaries", () => {
    const all = Array.from({ length: 65_541 }, (_, i) => leaf(i));
    for (const [from, to] of [
      [0, 600],
      [65_530, 65_541],
    ] as const) {
      const store = singleBatch(all.slice(0, from));
      for (let size = from; size < to; size++) append(store, size, [all[size] as Hash]);
      const one = singleBatch(all.slice(0, to));
      expect([...store.keys()].sort()).toEqual([...one.keys()].sort());
      for (const [key, row] of one) expect(hex(store.get(key) as Uint8Array), key).toBe(hex(row));
    }
  });

  it("any batching of a small log agrees with merkle.ts at every checkpoint", () => {
    const batches = fc.array(fc.oneof(fc.constantFrom(1, 7, 255, 256, 257), fc.integer({ min: 1, max: 600 })), {
      minLength: 1,
      maxLength: 6,
    });
    fc.assert(
      fc.property(batches, fc.nat(), (sizes, pick) => {
        const store: Store = new Map();
        const all: Hash[] = [];
        let size = 0;
        for (const n of sizes) {
          const batch = Array.from({ length: n }, (_, i) => leaf(size + i));
          all.push(...batch);
          const { root } = append(store, size, batch);
          size += n;
          expect(hex(root)).toBe(hex(rootOf(all)));
          const i = pick % size;
          expect(hexes(inclusionFromTiles(i, size, store))).toEqual(hexes(inclusionProof(i, all)));
          expect(hexes(consistencyFromTiles(i + 1, size, store))).toEqual(hexes(consistencyProof(i + 1, all)));
        }
      }),
      { numRuns: 25 },
    );
  });
});
