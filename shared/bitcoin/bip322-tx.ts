// BIP-322's virtual transactions as @scure/btc-signer transactions, for signing (signer.ts signs to_sign with
// btc-signer's own code) and for the tests' independent reference. The verifier hashes them directly instead
// (bip322-sighash.ts).
import { RawTx, Transaction } from "@scure/btc-signer";
import { bip322MessageHash, OP_RETURN_SCRIPT, SIMPLE_TO_SIGN, type ToSignFields } from "./bip322-sighash";
import { concatBytes, txidOf } from "./hash";

export {
  BIP322_TAG,
  bip322MessageHash,
  OP_RETURN_SCRIPT,
  SIMPLE_TO_SIGN,
  type ToSignFields,
} from "./bip322-sighash";

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
