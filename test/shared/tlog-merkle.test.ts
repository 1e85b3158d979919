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
import { RFC6962_CONSISTENCY, RFC6962_ENTRIES, RFC6962_INCLUSION, RFC6962_ROOTS } from "../helpers/rfc6962-vectors";

const DATA = RFC6962_ENTRIES.map(hexToBytes);
const ROOTS = RFC6962_ROOTS;
const INCLUSION = RFC6962_INCLUSION;
const CONSISTENCY = RFC6962_CONSISTENCY;
const LEAVES = DATA.map(leafHash);

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
