// BIP-322 virtual transactions (message hash, to_spend, to_sign) and the three signature hashes
// a one-input to_sign needs: legacy, BIP-143 (segwit v0) and BIP-341 (taproot key path).
import { RawTx, SigHash, Transaction } from "@scure/btc-signer";
import { concatBytes, sha256d, taggedHash, txidOf, utf8 } from "./hash";

export const BIP322_TAG = "BIP0322-signed-message";
export const OP_RETURN_SCRIPT = Uint8Array.of(0x6a);

/** The to_sign fields a full proof may set; the simple format fixes all three at 0. */
export interface ToSignFields {
  version: number;
  lockTime: number;
  /** nSequence of input 0. */
  sequence: number;
}

export const SIMPLE_TO_SIGN: Readonly<ToSignFields> = Object.freeze({
  version: 0,
  lockTime: 0,
  sequence: 0,
});

export function bip322MessageHash(message: string): Uint8Array {
  return taggedHash(BIP322_TAG, utf8(message));
}

/** to_spend, serialized, and its txid in display byte order. */
export function buildToSpendTx(scriptPubKey: Uint8Array, message: string): { raw: Uint8Array; txid: Uint8Array } {
  const raw = RawTx.encode({
    version: 0,
    segwitFlag: false,
    inputs: [
      {
        txid: new Uint8Array(32),
        index: 0xffffffff,
        // OP_0 PUSH32[message_hash]
        finalScriptSig: concatBytes(Uint8Array.of(0x00, 0x20), bip322MessageHash(message)),
        sequence: 0,
      },
    ],
    outputs: [{ amount: 0n, script: scriptPubKey }],
    lockTime: 0,
  });
  return { raw, txid: txidOf(raw) };
}

/** Unsigned to_sign spending to_spend:0 into a single zero-value OP_RETURN output. */
export function buildToSignTx(toSpendTxid: Uint8Array, fields: Readonly<ToSignFields> = SIMPLE_TO_SIGN): Transaction {
  const tx = new Transaction({
    version: fields.version,
    lockTime: fields.lockTime,
    // Full proofs may carry any version; the caller reports anything but 0 or 2 as inconclusive.
    allowUnknownVersion: true,
    allowUnknownOutputs: true,
  });
  tx.addInput({ txid: toSpendTxid, index: 0, sequence: fields.sequence });
  tx.addOutput({ script: OP_RETURN_SCRIPT, amount: 0n });
  return tx;
}

/**
 * Legacy SIGHASH_ALL digest of to_sign input 0. scure keeps its legacy preimage private; with one
 * input, one output and SIGHASH_ALL it is just to_sign serialized without witness, the input's
 * scriptSig replaced by scriptCode, followed by the 4-byte hash type. (P2PKH scriptCode has no
 * OP_CODESEPARATOR, so no FindAndDelete step applies.)
 */
export function legacySighashAll(
  toSpendTxid: Uint8Array,
  fields: Readonly<ToSignFields>,
  scriptCode: Uint8Array,
): Uint8Array {
  const raw = RawTx.encode({
    version: fields.version,
    segwitFlag: false,
    inputs: [{ txid: toSpendTxid, index: 0, finalScriptSig: scriptCode, sequence: fields.sequence }],
    outputs: [{ amount: 0n, script: OP_RETURN_SCRIPT }],
    lockTime: fields.lockTime,
  });
  return sha256d(concatBytes(raw, Uint8Array.of(SigHash.ALL, 0, 0, 0)));
}

/** BIP-143 SIGHASH_ALL digest of to_sign input 0 (prevout amount 0). */
export function segwitV0SighashAll(
  toSpendTxid: Uint8Array,
  fields: Readonly<ToSignFields>,
  scriptCode: Uint8Array,
): Uint8Array {
  return buildToSignTx(toSpendTxid, fields).preimageWitnessV0(0, scriptCode, SigHash.ALL, 0n);
}

/** BIP-341 key-path digest of to_sign input 0 (prevout amount 0, prevout script = address script). */
export function taprootKeyPathSighash(
  toSpendTxid: Uint8Array,
  fields: Readonly<ToSignFields>,
  scriptPubKey: Uint8Array,
  hashType: typeof SigHash.DEFAULT | typeof SigHash.ALL,
): Uint8Array {
  return buildToSignTx(toSpendTxid, fields).preimageWitnessV1(0, [scriptPubKey], hashType, [0n]);
}
