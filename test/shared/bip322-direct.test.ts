// The verifier's hand-written BIP-322 code against @scure/btc-signer's general transaction code, for random inputs:
// the to_spend txid, the BIP-143 and BIP-341 digests (shared/bitcoin/bip322-sighash.ts), legacy P2PKH through full
// proofs btc-signer signs, and the simple format's witness-stack decoder (bip322-proof.ts) against RawWitness.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { base64, hex } from "@scure/base";
import { p2pkh, RawWitness, SigHash, Transaction } from "@scure/btc-signer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { verifyMessageSignature } from "../../shared/bitcoin/bip322";
import { decodeWitnessStack } from "../../shared/bitcoin/bip322-proof";
import {
  segwitV0Sighash,
  type ToSignFields,
  taprootKeyPathSighash,
  toSpendHash,
} from "../../shared/bitcoin/bip322-sighash";
import { buildToSignTx, buildToSpendTx } from "../../shared/bitcoin/bip322-tx";
import { anyText } from "../fuzz/arbitraries";

const RUNS = { numRuns: 200 };
const u32 = fc.nat({ max: 0xffffffff });
const fields: fc.Arbitrary<ToSignFields> = fc.record({
  // nVersion is a signed 32-bit field (as btc-signer types it); lock time and sequence are unsigned.
  version: fc.oneof(fc.constantFrom(0, 1, 2, -1), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
  lockTime: fc.oneof(fc.constant(0), u32),
  sequence: fc.oneof(fc.constant(0), u32),
});
// Scripts of every length class of a CompactSize prefix (1 byte below 0xfd, then 0xfd + 2 bytes).
const script = fc.uint8Array({ maxLength: 300 });
const internal = (displayTxid: Uint8Array) => displayTxid.slice().reverse();

/** RawWitness.decode, or null where it throws. */
function scureWitness(bytes: Uint8Array): Uint8Array[] | null {
  try {
    return RawWitness.decode(bytes);
  } catch {
    return null;
  }
}

describe("hand-written BIP-322 code equals @scure/btc-signer's", () => {
  it("to_spend txid", () => {
    fc.assert(
      fc.property(script, anyText, (spk, message) => {
        expect(hex.encode(toSpendHash(spk, message))).toBe(hex.encode(internal(buildToSpendTx(spk, message).txid)));
      }),
      RUNS,
    );
  });

  it("BIP-143 SIGHASH_ALL digest of to_sign input 0", () => {
    fc.assert(
      fc.property(script, script, anyText, fields, (spk, scriptCode, message, f) => {
        const txid = buildToSpendTx(spk, message).txid;
        const expected = buildToSignTx(txid, f).preimageWitnessV0(0, scriptCode, SigHash.ALL, 0n);
        expect(hex.encode(segwitV0Sighash(internal(txid), f, scriptCode))).toBe(hex.encode(expected));
      }),
      RUNS,
    );
  });

  it("BIP-341 key-path digest, SIGHASH_DEFAULT and SIGHASH_ALL", () => {
    fc.assert(
      fc.property(script, anyText, fields, fc.constantFrom(0x00, 0x01), (spk, message, f, hashType) => {
        const txid = buildToSpendTx(spk, message).txid;
        const expected = buildToSignTx(txid, f).preimageWitnessV1(0, [spk], hashType, [0n]);
        expect(hex.encode(taprootKeyPathSighash(internal(txid), f, spk, hashType as 0 | 1))).toBe(hex.encode(expected));
      }),
      RUNS,
    );
  });

  const key = hex.decode("4f".repeat(32));
  const pay = p2pkh(secp256k1.getPublicKey(key, true));
  function legacyFullProof(message: string, f: ToSignFields) {
    const toSpend = buildToSpendTx(pay.script, message);
    const tx = new Transaction({ ...f, allowUnknownOutputs: true, allowUnknownVersion: true });
    tx.addInput({ txid: toSpend.txid, index: 0, sequence: f.sequence, nonWitnessUtxo: toSpend.raw });
    tx.addOutput({ script: Uint8Array.of(0x6a), amount: 0n });
    tx.sign(key);
    tx.finalize();
    const verdict = verifyMessageSignature({
      address: pay.address ?? "",
      message,
      signature: base64.encode(tx.extract()),
    });
    const conclusive = (f.version === 0 || f.version === 2) && f.lockTime === 0 && f.sequence === 0;
    expect(verdict).toEqual(conclusive ? { ok: true, scheme: "bip322" } : { ok: false, reason: "inconclusive" });
  }

  it("legacy P2PKH: full proofs btc-signer signs with any to_sign fields verify (or are inconclusive)", () => {
    fc.assert(fc.property(anyText, fields, legacyFullProof), { numRuns: 50 });
  });

  it("a full proof whose bytes also read as a witness stack is read as the transaction it is (regression)", () => {
    // Found by the property above: version 0xdb365704 reads as a stack of four items that uses every byte.
    legacyFullProof("3E&%", { version: -617195772, lockTime: 0, sequence: 0 });
  });

  it("witness-stack decoding: stacks of any shape, their truncations and extensions, and random bytes", () => {
    const stack = fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 4 });
    fc.assert(
      fc.property(
        stack,
        fc.nat(),
        fc.uint8Array({ maxLength: 3 }),
        fc.uint8Array({ maxLength: 80 }),
        (items, cut, extra, junk) => {
          const encoded = RawWitness.encode(items);
          expect(decodeWitnessStack(encoded)).toEqual(items);
          for (const bytes of [
            encoded.subarray(0, cut % (encoded.length + 1)),
            Uint8Array.of(...encoded, ...extra),
            junk,
          ]) {
            expect(decodeWitnessStack(bytes)).toEqual(scureWitness(bytes));
          }
        },
      ),
      RUNS,
    );
    // Non-shortest sizes are refused by both: 0xfd 0x02 0x00 is a two-byte encoding of 2.
    const wide = Uint8Array.of(0x01, 0xfd, 0x02, 0x00, 0xaa, 0xbb);
    expect(decodeWitnessStack(wide)).toBeNull();
    expect(scureWitness(wide)).toBeNull();
  });
});
