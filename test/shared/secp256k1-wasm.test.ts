// The libsecp256k1 WebAssembly wrapper, inside workerd: loaded from the compiled `.wasm` import, it answers like
// @noble/curves for ECDSA verify, BIP-340 verify and public-key recovery on random valid and broken inputs, and it
// refuses (fails closed) a module that is not the build it was written for.
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { hex } from "@scure/base";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { nobleSecp256k1 as noble } from "../../shared/bitcoin/curve-noble";
import { CURVE_ORDER, HALF_ORDER } from "../../shared/bitcoin/ecdsa";
import { sha256, sha256d, utf8 } from "../../shared/bitcoin/hash";
import { defaultSecp256k1 } from "../../shared/bitcoin/secp256k1-module";
import {
  forgetUncompressedKeys,
  instantiateSecp256k1,
  Secp256k1UnavailableError,
} from "../../shared/bitcoin/secp256k1-wasm";
import wasmModule from "../../shared/bitcoin/wasm/secp256k1.wasm";

const RUNS = { numRuns: 200 };
const N = secp256k1.Point.Fn.ORDER;
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const secretKey = bytes32.filter((key) => secp256k1.utils.isValidSecretKey(key));
/** One byte of `data` xor-ed with a non-zero mask, or `data` unchanged. */
const maybeFlip = (data: Uint8Array, flip: { at: number; mask: number } | null) => {
  if (!flip) return data;
  const out = data.slice();
  const i = flip.at % out.length;
  out[i] = (out[i] ?? 0) ^ flip.mask;
  return out;
};
const flip = fc.option(fc.record({ at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }));

describe("libsecp256k1 (WebAssembly) against @noble/curves", () => {
  const wasm = defaultSecp256k1();

  it("the order constants the DER checks use are the curve's", () => {
    expect(BigInt(`0x${hex.encode(CURVE_ORDER)}`)).toBe(N);
    expect(BigInt(`0x${hex.encode(HALF_ORDER)}`)).toBe(N >> 1n);
  });

  it("ECDSA verify: same answer for valid signatures and for one flipped byte of signature, digest or key", () => {
    fc.assert(
      fc.property(secretKey, bytes32, fc.boolean(), flip, flip, flip, (key, digest, compressed, fs, fd, fk) => {
        const sig = maybeFlip(secp256k1.sign(digest, key, { prehash: false }), fs);
        const msg = maybeFlip(digest, fd);
        const pub = maybeFlip(secp256k1.getPublicKey(key, compressed), fk);
        const expected = noble.verifyEcdsa(sig, msg, pub);
        expect(wasm.verifyEcdsa(sig, msg, pub)).toBe(expected);
        if (!fs && !fd && !fk) expect(expected).toBe(true);
      }),
      RUNS,
    );
  });

  it("ECDSA verify with a key seen before (kept uncompressed) answers as with a new key, for any signature", () => {
    fc.assert(
      fc.property(secretKey, secretKey, bytes32, flip, flip, fc.boolean(), (key, other, digest, fs, fd, forget) => {
        const pub = secp256k1.getPublicKey(key, true);
        const good = secp256k1.sign(digest, key, { prehash: false });
        expect(wasm.verifyEcdsa(good, digest, pub)).toBe(true); // the key is kept from here on
        if (forget) forgetUncompressedKeys();
        const sig = maybeFlip(good, fs);
        const msg = maybeFlip(digest, fd);
        expect(wasm.verifyEcdsa(sig, msg, pub)).toBe(noble.verifyEcdsa(sig, msg, pub));
        // Another key's signature never passes under the kept key.
        const foreign = secp256k1.sign(digest, other, { prehash: false });
        expect(wasm.verifyEcdsa(foreign, digest, pub)).toBe(noble.verifyEcdsa(foreign, digest, pub));
      }),
      RUNS,
    );
  });

  it("a compressed key off the curve is refused each time, and is not kept", () => {
    const offCurve = Uint8Array.of(0x02, ...new Uint8Array(31), 0x05); // x = 5: x^3 + 7 = 132 is no square mod p
    const sig = secp256k1.sign(new Uint8Array(32).fill(1), new Uint8Array(32).fill(2), { prehash: false });
    expect(noble.verifyEcdsa(sig, new Uint8Array(32).fill(1), offCurve)).toBe(false);
    expect(wasm.verifyEcdsa(sig, new Uint8Array(32).fill(1), offCurve)).toBe(false);
    expect(wasm.verifyEcdsa(sig, new Uint8Array(32).fill(1), offCurve)).toBe(false);
  });

  it("BIP-340 verify: same answer for valid signatures and for one flipped byte of signature, message or key", () => {
    fc.assert(
      fc.property(secretKey, bytes32, flip, flip, flip, (key, message, fs, fm, fk) => {
        const sig = maybeFlip(schnorr.sign(message, key), fs);
        const msg = maybeFlip(message, fm);
        const pub = maybeFlip(schnorr.getPublicKey(key), fk);
        const expected = noble.verifySchnorr(sig, msg, pub);
        expect(wasm.verifySchnorr(sig, msg, pub)).toBe(expected);
        if (!fs && !fm && !fk) expect(expected).toBe(true);
      }),
      RUNS,
    );
  });

  it("recovery: the same key (or none) for every recovery id, both serializations, flipped or random r‖s", () => {
    fc.assert(
      fc.property(
        secretKey,
        bytes32,
        fc.boolean(),
        flip,
        fc.option(fc.uint8Array({ minLength: 64, maxLength: 64 })),
        (key, digest, compressed, f, random) => {
          const signed = secp256k1.sign(digest, key, { prehash: false, format: "recovered" });
          const sig = random ?? maybeFlip(signed.subarray(1), f);
          for (const recovery of [0, 1, 2, 3]) {
            const expected = noble.recoverPublicKey(sig, recovery, digest, compressed);
            expect(wasm.recoverPublicKey(sig, recovery, digest, compressed)).toEqual(expected);
          }
          if (!random && !f) {
            const own = wasm.recoverPublicKey(sig, signed[0] ?? 0, digest, compressed);
            expect(own).toEqual(secp256k1.getPublicKey(key, compressed));
          }
        },
      ),
      RUNS,
    );
  });

  it("edge scalars and keys: r or s zero or n, r = p - n region, keys off the curve, wrong lengths", () => {
    const n = CURVE_ORDER;
    const one = hex.decode(`${"00".repeat(31)}01`);
    const digest = new Uint8Array(32).fill(7);
    const key = secp256k1.getPublicKey(new Uint8Array(32).fill(9));
    const sigs = [
      [new Uint8Array(32), one],
      [one, new Uint8Array(32)],
      [n, one],
      [one, n],
      [new Uint8Array(32).fill(0xff), one],
      [hex.decode(`${"00".repeat(16)}${"ff".repeat(16)}`), one],
    ].map(([r, s]) => Uint8Array.of(...(r ?? []), ...(s ?? [])));
    const keys = [
      key,
      Uint8Array.of(0x02, ...new Uint8Array(32).fill(0xff)),
      Uint8Array.of(0x06, ...key.subarray(1)),
      key.subarray(0, 32),
    ];
    for (const sig of sigs) {
      for (const pub of keys) expect(wasm.verifyEcdsa(sig, digest, pub)).toBe(noble.verifyEcdsa(sig, digest, pub));
      for (const recovery of [0, 1, 2, 3]) {
        for (const compressed of [true, false]) {
          expect(wasm.recoverPublicKey(sig, recovery, digest, compressed)).toEqual(
            noble.recoverPublicKey(sig, recovery, digest, compressed),
          );
        }
      }
      expect(wasm.verifySchnorr(sig, digest, key.subarray(1))).toBe(noble.verifySchnorr(sig, digest, key.subarray(1)));
    }
    expect(wasm.verifySchnorr(sigs[0] ?? new Uint8Array(64), digest, new Uint8Array(32).fill(0xff))).toBe(false);
    expect(wasm.verifyEcdsa(new Uint8Array(63), digest, key)).toBe(false);
    expect(wasm.recoverPublicKey(new Uint8Array(64), 4, digest, true)).toBeNull();
  });
});

describe("the module's SHA-256 (libsecp256k1's own), which the verifier's hashing uses once the module is up", () => {
  const module = instantiateSecp256k1(wasmModule);

  it("equals @noble/hashes' for any input, once and twice, across the module's 4,096-byte input buffer", () => {
    const lengths = fc.oneof(fc.nat(200), fc.integer({ min: 4000, max: 13_000 }));
    fc.assert(
      fc.property(lengths, fc.nat(), fc.boolean(), (length, seed, twice) => {
        const data = Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff);
        const expected = twice ? nobleSha256(nobleSha256(data)) : nobleSha256(data);
        expect(module.sha256(data, twice)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it("is what hash.ts hashes with after instantiation (the FIPS 180-2 vector, and a digest of a digest)", () => {
    const abc = hex.decode("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256(utf8("abc"))).toEqual(abc);
    expect(sha256d(utf8("abc"))).toEqual(nobleSha256(abc));
    expect(module.sha256(utf8("abc"), false)).toEqual(abc);
  });
});

describe("instantiation fails closed", () => {
  it("anything but a compiled module is Secp256k1UnavailableError, never a verifier", () => {
    for (const bogus of [{}, null, "secp256k1.wasm"]) {
      expect(() => instantiateSecp256k1(bogus as unknown as WebAssembly.Module)).toThrow(Secp256k1UnavailableError);
    }
  });
});

describe("an instance made where random values are refused (global scope, the verifier's warm-up)", () => {
  it("needs no random values and verifies like any other", () => {
    const refused = vi.spyOn(crypto, "getRandomValues").mockImplementation(() => {
      throw new Error("random values are refused at global scope");
    });
    let backend: ReturnType<typeof instantiateSecp256k1>;
    try {
      backend = instantiateSecp256k1(wasmModule);
      expect(refused).not.toHaveBeenCalled();
    } finally {
      refused.mockRestore();
    }
    const key = secp256k1.utils.randomSecretKey();
    const digest = crypto.getRandomValues(new Uint8Array(32));
    const sig = secp256k1.sign(digest, key, { prehash: false });
    const pub = secp256k1.getPublicKey(key, true);
    expect(backend.verifyEcdsa(sig, digest, pub)).toBe(true);
    expect(backend.verifyEcdsa(sig, maybeFlip(digest, { at: 0, mask: 1 }), pub)).toBe(false);
  });
});
