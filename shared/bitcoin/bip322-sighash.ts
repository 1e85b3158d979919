// BIP-322's virtual transactions have a fixed shape (one input, one zero-value output each), so the verifier builds
// their hashes byte by byte: the to_spend txid, and to_sign's signature hash for input 0 under legacy P2PKH,
// BIP-143 (segwit v0) and BIP-341 (taproot key path). Hand-written because a general transaction builder cost more
// than the curve itself once the curve moved to WebAssembly; the tests hold each hash to @scure/btc-signer's.
import { compactSize, concatBytes, sha256, sha256d, taggedHash, utf8 } from "./hash";

export const BIP322_TAG = "BIP0322-signed-message";
export const OP_RETURN_SCRIPT = Uint8Array.of(0x6a);

/** The to_sign fields a full proof may set; the simple format fixes all three at 0. */
export interface ToSignFields {
  version: number;
  lockTime: number;
  /** nSequence of input 0. */
  sequence: number;
}

export const SIMPLE_TO_SIGN: Readonly<ToSignFields> = Object.freeze({ version: 0, lockTime: 0, sequence: 0 });

const SIGHASH_ALL = 0x01;
const ZERO_AMOUNT = new Uint8Array(8);
// to_sign's only output, serialized: amount 0, then the one-byte script OP_RETURN.
const TO_SIGN_OUTPUT = Uint8Array.of(...ZERO_AMOUNT, 0x01, 0x6a);
// Constant parts of the segwit hashes: BIP-143's hashOutputs, BIP-341's sha_outputs and sha_amounts, and both
// sequence hashes for nSequence 0 (the simple format's, and any conclusive full proof's).
const HASH_OUTPUTS_V0 = sha256d(TO_SIGN_OUTPUT);
const SHA_OUTPUTS = sha256(TO_SIGN_OUTPUT);
const SHA_AMOUNTS = sha256(ZERO_AMOUNT);
const HASH_SEQUENCE_ZERO = sha256d(new Uint8Array(4));
const SHA_SEQUENCE_ZERO = sha256(new Uint8Array(4));

export function bip322MessageHash(message: string): Uint8Array {
  return taggedHash(BIP322_TAG, utf8(message));
}

/**
 * sha256d of to_spend (version 0, the null outpoint, scriptSig OP_0 PUSH32[message hash], one zero-value output to
 * the address's script): to_sign's outpoint hash, in internal byte order (the txid reversed).
 */
export function toSpendHash(scriptPubKey: Uint8Array, message: string): Uint8Array {
  return sha256d(
    concatBytes(
      Uint8Array.of(0, 0, 0, 0, 1),
      new Uint8Array(32),
      Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x22, 0x00, 0x20),
      bip322MessageHash(message),
      Uint8Array.of(0, 0, 0, 0, 1),
      ZERO_AMOUNT,
      compactSize(scriptPubKey.length),
      scriptPubKey,
      Uint8Array.of(0, 0, 0, 0),
    ),
  );
}

/**
 * Legacy SIGHASH_ALL digest: to_sign without witness, its scriptSig replaced by scriptCode, then the 4-byte hash
 * type. (A P2PKH scriptCode has no OP_CODESEPARATOR, so no FindAndDelete step applies.)
 */
export function legacySighash(
  outpoint: Uint8Array,
  fields: Readonly<ToSignFields>,
  scriptCode: Uint8Array,
): Uint8Array {
  return sha256d(
    concatBytes(
      u32(fields.version),
      Uint8Array.of(1),
      outpointBytes(outpoint),
      compactSize(scriptCode.length),
      scriptCode,
      u32(fields.sequence),
      Uint8Array.of(1),
      TO_SIGN_OUTPUT,
      u32(fields.lockTime),
      u32(SIGHASH_ALL),
    ),
  );
}

/** BIP-143 SIGHASH_ALL digest of input 0 (the prevout's amount is 0). */
export function segwitV0Sighash(
  outpoint: Uint8Array,
  fields: Readonly<ToSignFields>,
  scriptCode: Uint8Array,
): Uint8Array {
  const prevout = outpointBytes(outpoint);
  const sequence = u32(fields.sequence);
  return sha256d(
    concatBytes(
      u32(fields.version),
      sha256d(prevout),
      fields.sequence === 0 ? HASH_SEQUENCE_ZERO : sha256d(sequence),
      prevout,
      compactSize(scriptCode.length),
      scriptCode,
      ZERO_AMOUNT,
      sequence,
      HASH_OUTPUTS_V0,
      u32(fields.lockTime),
      u32(SIGHASH_ALL),
    ),
  );
}

/**
 * BIP-341 key-path digest of input 0, SIGHASH_DEFAULT (0x00) or SIGHASH_ALL (0x01): epoch 0, no ANYONECANPAY,
 * no annex, the prevout worth 0 and locked by the address's own script.
 */
export function taprootKeyPathSighash(
  outpoint: Uint8Array,
  fields: Readonly<ToSignFields>,
  scriptPubKey: Uint8Array,
  hashType: 0x00 | 0x01,
): Uint8Array {
  return taggedHash(
    "TapSighash",
    concatBytes(
      Uint8Array.of(0x00, hashType),
      u32(fields.version),
      u32(fields.lockTime),
      sha256(outpointBytes(outpoint)),
      SHA_AMOUNTS,
      sha256(concatBytes(compactSize(scriptPubKey.length), scriptPubKey)),
      fields.sequence === 0 ? SHA_SEQUENCE_ZERO : sha256(u32(fields.sequence)),
      SHA_OUTPUTS,
      // spend_type 0 (key path, no annex), then input index 0.
      Uint8Array.of(0x00, 0, 0, 0, 0),
    ),
  );
}

/** to_spend:0, as serialized in a transaction. */
function outpointBytes(hash: Uint8Array): Uint8Array {
  return concatBytes(hash, Uint8Array.of(0, 0, 0, 0));
}

/** 4-byte little-endian; a negative version (a full proof's int32) wraps to its two's complement. */
function u32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value >>> 0, true);
  return out;
}
