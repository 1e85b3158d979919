// The per-project log's tree (issue 18): RFC 6962/9162 hashing against the Certificate Transparency reference
// vectors (roots of sizes 0-8, inclusion and consistency proofs), then properties over random trees: every
// inclusion and consistency proof verifies, and any altered leaf, root, size or proof step fails.
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { leafDigest } from "../../shared/tlog/leaf-digest";
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from "../../shared/tlog/merkle";

const DATA = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(
  hexToBytes,
);
const LEAVES = DATA.map(leafHash);
const ROOTS = [
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];
// [leaf index (0-based), tree size, audit path]
const INCLUSION: [number, number, string[]][] = [
  [
    0,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    5,
    8,
    [
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]],
  [
    1,
    5,
    [
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
];
// [first size, second size, consistency proof]
const CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    6,
    8,
    [
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [
    2,
    5,
    [
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
];

const root = (n: number) => hexToBytes(ROOTS[n] as string);
const flip = (h: Uint8Array, at = 0) => h.map((v, i) => (i === at ? v ^ 1 : v));

describe("the leaf hash through WebCrypto (the registration's)", () => {
  it("is merkle.ts's leafHash for every reference input and a kilobyte of JSON", async () => {
    const kilobyte = new TextEncoder().encode(JSON.stringify({ padding: "x".repeat(1_000) }));
    for (const data of [...DATA, kilobyte]) expect(bytesToHex(await leafDigest(data))).toBe(bytesToHex(leafHash(data)));
  });
});

describe("RFC 6962 reference vectors", () => {
  it("roots of sizes 0 to 8", () => {
    for (let n = 0; n <= 8; n++) expect(bytesToHex(rootOf(LEAVES.slice(0, n))), `size ${n}`).toBe(ROOTS[n]);
  });

  it("inclusion proofs, built and verified", () => {
    for (const [index, size, path] of INCLUSION) {
      const proof = inclusionProof(index, LEAVES.slice(0, size));
      expect(proof.map(bytesToHex)).toEqual(path);
      expect(verifyInclusion(index, size, LEAVES[index] as Uint8Array, proof, root(size))).toBe(true);
      expect(verifyInclusion(index, size, LEAVES[index] as Uint8Array, proof, root(size - 1))).toBe(false);
    }
  });

  it("consistency proofs, built and verified", () => {
    for (const [first, second, path] of CONSISTENCY) {
      const proof = consistencyProof(first, LEAVES.slice(0, second));
      expect(proof.map(bytesToHex)).toEqual(path);
      expect(verifyConsistency(first, second, proof, root(first), root(second))).toBe(true);
      if (first !== second)
        expect(verifyConsistency(first, second, proof, flip(root(first)), root(second))).toBe(false);
    }
  });
});

const tree = fc.array(fc.uint8Array({ maxLength: 12 }), { minLength: 1, maxLength: 70 }).map((d) => d.map(leafHash));

describe("properties over random trees", () => {
  it("every leaf's inclusion proof verifies; another leaf, root, index or a changed step does not", () => {
    fc.assert(
      fc.property(tree, fc.nat(), (leaves, pick) => {
        const n = leaves.length;
        const i = pick % n;
        const r = rootOf(leaves);
        const proof = inclusionProof(i, leaves);
        const leaf = leaves[i] as Uint8Array;
        expect(verifyInclusion(i, n, leaf, proof, r)).toBe(true);
        expect(verifyInclusion(i, n, flip(leaf), proof, r)).toBe(false);
        expect(verifyInclusion(i, n, leaf, proof, flip(r))).toBe(false);
        const other = (i + 1) % n;
        if (n > 1 && bytesToHex(leaves[other] as Uint8Array) !== bytesToHex(leaf)) {
          expect(verifyInclusion(other, n, leaf, proof, r)).toBe(false);
        }
        if (proof.length > 0) {
          const step = pick % proof.length;
          const altered = proof.map((p, k) => (k === step ? flip(p, 31) : p));
          expect(verifyInclusion(i, n, leaf, altered, r)).toBe(false);
          expect(verifyInclusion(i, n, leaf, proof.slice(1), r)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("every older size is consistent with the newer; an altered old root, leaf or step is not", () => {
    fc.assert(
      fc.property(tree, fc.nat(), fc.nat(), (leaves, a, pick) => {
        const n = leaves.length;
        const m = (a % n) + 1;
        const proof = consistencyProof(m, leaves);
        const oldRoot = rootOf(leaves.slice(0, m));
        const newRoot = rootOf(leaves);
        expect(verifyConsistency(m, n, proof, oldRoot, newRoot)).toBe(true);
        if (m === n) return;
        expect(verifyConsistency(m, n, proof, flip(oldRoot), newRoot)).toBe(false);
        expect(verifyConsistency(m, n, proof, oldRoot, flip(newRoot))).toBe(false);
        // History rewritten: one old leaf changed gives another old root, which the proof cannot reconcile.
        const rewritten = leaves.map((l, k) => (k === pick % m ? flip(l) : l));
        expect(verifyConsistency(m, n, proof, rootOf(rewritten.slice(0, m)), newRoot)).toBe(false);
        const step = pick % proof.length;
        const altered = proof.map((p, k) => (k === step ? flip(p, 7) : p));
        expect(verifyConsistency(m, n, altered, oldRoot, newRoot)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
