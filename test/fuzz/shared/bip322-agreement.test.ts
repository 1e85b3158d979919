// Property tests: verifyMessageSignature gives the same verdict (reason and scheme included) on libsecp256k1 as
// WebAssembly (the workers' path) and on @noble/curves (the reference), inside workerd, for random keys, messages
// and address types, valid and mutated, and for every vector. The Node twin adds bip322-js as a third opinion.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { verifyMessageSignature } from "../../../shared/bitcoin/bip322";
import { nobleSecp256k1 } from "../../../shared/bitcoin/curve-noble";
import { MUTATIONS, mutate, PROOF_KINDS, SIGNATURE_VECTORS, signMessage } from "../../helpers/bip322-proofs";
import { anyText } from "../arbitraries";

const RUNS = { numRuns: 150 };
const secretKey = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .filter((key) => secp256k1.utils.isValidSecretKey(key));

const both = (input: Parameters<typeof verifyMessageSignature>[0]) => ({
  wasm: verifyMessageSignature(input),
  noble: verifyMessageSignature(input, nobleSecp256k1),
});

describe("verifyMessageSignature: libsecp256k1 (WebAssembly) and @noble/curves agree", () => {
  it("on random signatures of every address type, valid and mutated (byte flip, message, address, high S)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PROOF_KINDS),
        secretKey,
        secretKey,
        anyText,
        fc.boolean(),
        fc.constantFrom(...MUTATIONS),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (kind, key, other, message, full, mutation, at, mask) => {
          const signed = mutate(kind, signMessage(kind, key, message, full), mutation, { other, at, mask });
          const { wasm, noble } = both(signed);
          expect(wasm).toEqual(noble);
          // An unchanged signature verifies; a changed message or address, or a high-S ECDSA twin, never does.
          if (mutation === "none") expect(wasm.ok).toBe(true);
          if (mutation === "message" || mutation === "address") expect(wasm.ok).toBe(false);
          // BIP-137 (legacy) accepts a high-S compact signature, as Bitcoin Core's verifymessage does.
          if (mutation === "high-s" && kind !== "p2tr") expect(wasm.ok).toBe(kind === "p2pkh-legacy");
        },
      ),
      RUNS,
    );
  });

  it("on random bytes as a signature", () => {
    fc.assert(
      fc.property(fc.constantFrom(...PROOF_KINDS), secretKey, fc.uint8Array({ maxLength: 300 }), (kind, key, junk) => {
        const { address } = signMessage(kind, key, "m");
        const { wasm, noble } = both({ address, message: "m", signature: btoa(String.fromCharCode(...junk)) });
        expect(wasm).toEqual(noble);
      }),
      RUNS,
    );
  });

  it.each(SIGNATURE_VECTORS.map((v, i) => [i, v] as const))("on vector %i, as given and changed", (_i, vector) => {
    const { wasm, noble } = both(vector);
    expect(wasm).toEqual(noble);
    expect(wasm.ok).toBe(vector.valid);
    for (const changed of [
      { ...vector, message: `${vector.message}!` },
      mutate("p2wpkh", vector, "flip", { other: new Uint8Array(32), at: 40, mask: 1 }),
    ]) {
      const verdicts = both(changed);
      expect(verdicts.wasm).toEqual(verdicts.noble);
      expect(verdicts.wasm.ok).toBe(false);
    }
  });
});
