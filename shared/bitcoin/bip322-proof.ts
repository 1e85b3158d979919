// Decodes a BIP-322 proof (simple: a witness stack; full: a whole to_sign transaction) and checks
// a full to_sign's fixed fields against the to_spend it must spend.
import { RawTx } from "@scure/btc-signer";
import { OP_RETURN_SCRIPT, SIMPLE_TO_SIGN, type ToSignFields } from "./bip322-sighash";
import { bytesEqual } from "./hash";

/** What the script check needs from to_sign input 0. */
export interface ToSignSpend extends ToSignFields {
  /** Input 0's scriptSig; null in the simple format, where the address type implies it. */
  scriptSig: Uint8Array | null;
  witness: Uint8Array[];
}

/** A decoded to_sign (scure's RawTx coder types its inner fields loosely; this pins them). */
interface RawToSign {
  version: number;
  lockTime: number;
  inputs: { txid: Uint8Array; index: number; finalScriptSig: Uint8Array; sequence: number }[];
  outputs: { amount: bigint; script: Uint8Array }[];
  witnesses?: Uint8Array[][] | undefined;
}

export type Bip322Proof = { format: "simple"; witness: Uint8Array[] } | { format: "full"; tx: RawToSign };

export type ProofShape = { ok: true; spend: ToSignSpend } | { ok: false; verdict: "invalid" | "inconclusive" };

/**
 * Both decoders reject trailing bytes. Some transactions also read as a well-formed witness stack (a version such
 * as 0xdb365704 reads as four items of 0x57, … bytes, and the rest can fit exactly), so a proof whose first input
 * (after the version and the input count, or the segwit marker, flag and count) names this message's to_spend
 * (`toSpend`, internal byte order) is read as a full proof first. A witness stack carrying that 32-byte hash at
 * that place by accident would be a hash collision.
 */
export function decodeProof(bytes: Uint8Array, toSpend: Uint8Array): Bip322Proof | null {
  const spendsToSpend = bytesEqual(bytes.subarray(5, 37), toSpend) || bytesEqual(bytes.subarray(7, 39), toSpend);
  const full = spendsToSpend ? decodeFull(bytes) : null;
  if (full) return full;
  const witness = decodeWitnessStack(bytes);
  if (witness) return { format: "simple", witness };
  return decodeFull(bytes);
}

function decodeFull(bytes: Uint8Array): Bip322Proof | null {
  try {
    const tx: RawToSign = RawTx.decode(bytes);
    return { format: "full", tx };
  } catch {
    return null;
  }
}

/**
 * Input-0 view of to_sign, after checking a full proof spends to_spend:0 into one OP_RETURN. `toSpend` is
 * to_spend's hash in internal byte order (the decoder gives txids in display order, reversed).
 */
export function toSignSpend(proof: Bip322Proof, toSpend: Uint8Array): ProofShape {
  if (proof.format === "simple") {
    return { ok: true, spend: { ...SIMPLE_TO_SIGN, scriptSig: null, witness: proof.witness } };
  }
  const { tx } = proof;
  const input = tx.inputs[0];
  if (input?.index !== 0 || !bytesEqual(input.txid.slice().reverse(), toSpend)) {
    return { ok: false, verdict: "invalid" };
  }
  // Extra inputs make a proof of funds, which needs the UTXO set to check.
  if (tx.inputs.length !== 1) return { ok: false, verdict: "inconclusive" };
  const output = tx.outputs[0];
  if (tx.outputs.length !== 1 || !output || output.amount !== 0n || !bytesEqual(output.script, OP_RETURN_SCRIPT)) {
    return { ok: false, verdict: "invalid" };
  }
  return {
    ok: true,
    spend: {
      version: tx.version,
      lockTime: tx.lockTime,
      sequence: input.sequence,
      scriptSig: input.finalScriptSig,
      witness: tx.witnesses?.[0] ?? [],
    },
  };
}

/**
 * BIP-322 "upgradeable rules" (version 0 or 2) plus our sign-in policy: no time locks. A proof
 * valid only "at time T and age S" is reported inconclusive rather than valid.
 */
export function isConclusiveToSign(fields: Readonly<ToSignFields>): boolean {
  return (fields.version === 0 || fields.version === 2) && fields.lockTime === 0 && fields.sequence === 0;
}

/**
 * A serialized witness stack (CompactSize count, then CompactSize-length items) that parses exactly, else null.
 * Hand-written for the simple format, every sign-in's path: btc-signer's general coder (RawWitness, which the tests
 * hold this to) costs milliseconds of first-use compilation in a fresh isolate. Like it, shortest sizes only.
 */
export function decodeWitnessStack(bytes: Uint8Array): Uint8Array[] | null {
  let at = 0;
  const size = (): number | null => {
    const first = bytes[at];
    if (first === undefined) return null;
    if (first < 0xfd) {
      at += 1;
      return first;
    }
    // Two-byte sizes only: a 4- or 8-byte size exceeds any proof the verifier accepts (8 KiB of text).
    const value = (bytes[at + 1] ?? 0) | ((bytes[at + 2] ?? 0) << 8);
    if (first !== 0xfd || at + 3 > bytes.length || value < 0xfd) return null;
    at += 3;
    return value;
  };
  const count = size();
  if (count === null) return null;
  const items: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const length = size();
    if (length === null || at + length > bytes.length) return null;
    items.push(bytes.subarray(at, at + length));
    at += length;
  }
  return at === bytes.length ? items : null;
}
