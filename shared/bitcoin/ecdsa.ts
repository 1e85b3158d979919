// ECDSA checks BIP-322 requires of a script signature: strict DER (BIP-66), low S, r and s in
// [1, n-1], hash type exactly SIGHASH_ALL, and a strictly encoded public key.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hex } from "@scure/base";
import { concatBytes } from "./hash";

const N = secp256k1.Point.Fn.ORDER;
const HALF_N = N >> 1n;
const SIGHASH_ALL = 0x01;

/** Parses a BIP-66 strict DER signature (without hash type) into r and s; null if not strict. */
export function parseStrictDer(der: Uint8Array): { r: bigint; s: bigint } | null {
  const len = der.length;
  if (len < 8 || len > 72) return null;
  if (der[0] !== 0x30 || der[1] !== len - 2) return null;
  const lenR = der[3] ?? 0;
  if (der[2] !== 0x02 || lenR === 0 || 5 + lenR >= len) return null;
  const lenS = der[5 + lenR] ?? 0;
  if (der[4 + lenR] !== 0x02 || lenS === 0 || 6 + lenR + lenS !== len) return null;
  const r = der.subarray(4, 4 + lenR);
  const s = der.subarray(6 + lenR, len);
  if (!isMinimalPositive(r) || !isMinimalPositive(s)) return null;
  return { r: BigInt(`0x${hex.encode(r)}`), s: BigInt(`0x${hex.encode(s)}`) };
}

// DER INTEGER: not negative, and no leading 0x00 unless the next byte has its high bit set.
function isMinimalPositive(int: Uint8Array): boolean {
  const first = int[0] ?? 0;
  if (first & 0x80) return false;
  return !(int.length > 1 && first === 0x00 && ((int[1] ?? 0) & 0x80) === 0);
}

/** STRICTENC public key: 33-byte compressed (02/03) or 65-byte uncompressed (04). */
export function isStrictPubkey(pubkey: Uint8Array, compressedOnly: boolean): boolean {
  if (pubkey.length === 33) return pubkey[0] === 0x02 || pubkey[0] === 0x03;
  return !compressedOnly && pubkey.length === 65 && pubkey[0] === 0x04;
}

/**
 * Verifies a script signature (DER + 1-byte hash type) over an already computed sighash.
 * `compressedOnly` applies the segwit v0 WITNESS_PUBKEYTYPE rule.
 */
export function verifyScriptEcdsa(
  signature: Uint8Array,
  pubkey: Uint8Array,
  sighash: Uint8Array,
  compressedOnly: boolean,
): boolean {
  if (signature.length < 2 || signature[signature.length - 1] !== SIGHASH_ALL) return false;
  if (!isStrictPubkey(pubkey, compressedOnly)) return false;
  const parsed = parseStrictDer(signature.subarray(0, -1));
  if (!parsed) return false;
  const { r, s } = parsed;
  if (r < 1n || r >= N || s < 1n || s > HALF_N) return false;
  const compact = concatBytes(toBytes32(r), toBytes32(s));
  try {
    // noble v2 defaults to prehash: true (it would sha256 the sighash again): must be off here.
    return secp256k1.verify(compact, sighash, pubkey, {
      prehash: false,
      lowS: true,
      format: "compact",
    });
  } catch {
    return false;
  }
}

function toBytes32(value: bigint): Uint8Array {
  return hex.decode(value.toString(16).padStart(64, "0"));
}
