// ECDSA checks BIP-322 requires of a script signature: strict DER (BIP-66), low S, r and s in [1, n-1], hash type
// exactly SIGHASH_ALL, and a strictly encoded public key. Works on bytes (no bigints): this is the verify hot path.
import { hex } from "@scure/base";
import type { Secp256k1Backend } from "./curve";

const SIGHASH_ALL = 0x01;
// The group order n and floor(n / 2), big-endian (secp256k1-wasm.test.ts checks both against @noble/curves).
export const CURVE_ORDER = hex.decode("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
export const HALF_ORDER = hex.decode("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0");

/**
 * A BIP-66 strict DER signature (without hash type) as compact r‖s, 32 bytes each; null if it is not strict DER or
 * r is not in [1, n-1] or s not in [1, n/2].
 */
export function strictDerToCompact(der: Uint8Array): Uint8Array | null {
  const len = der.length;
  if (len < 8 || len > 72) return null;
  if (der[0] !== 0x30 || der[1] !== len - 2) return null;
  const lenR = der[3] ?? 0;
  if (der[2] !== 0x02 || lenR === 0 || 5 + lenR >= len) return null;
  const lenS = der[5 + lenR] ?? 0;
  if (der[4 + lenR] !== 0x02 || lenS === 0 || 6 + lenR + lenS !== len) return null;
  const r = scalar32(der.subarray(4, 4 + lenR));
  const s = scalar32(der.subarray(6 + lenR, len));
  if (!r || !s || isZero(r) || isZero(s) || compare(r, CURVE_ORDER) >= 0 || compare(s, HALF_ORDER) > 0) return null;
  const compact = new Uint8Array(64);
  compact.set(r, 0);
  compact.set(s, 32);
  return compact;
}

/** A minimal, non-negative DER INTEGER as 32 big-endian bytes; null if not minimal, negative or wider. */
function scalar32(int: Uint8Array): Uint8Array | null {
  const first = int[0] ?? 0;
  if (first & 0x80) return null;
  // A leading 0x00 is only allowed (and then required) before a byte with its high bit set.
  if (int.length > 1 && first === 0x00 && ((int[1] ?? 0) & 0x80) === 0) return null;
  const digits = first === 0x00 ? int.subarray(1) : int;
  if (digits.length > 32) return null;
  const out = new Uint8Array(32);
  out.set(digits, 32 - digits.length);
  return out;
}

function isZero(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 0);
}

/** Big-endian comparison of two 32-byte numbers. */
function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
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
  curve: Secp256k1Backend,
): boolean {
  if (signature.length < 2 || signature[signature.length - 1] !== SIGHASH_ALL) return false;
  if (!isStrictPubkey(pubkey, compressedOnly)) return false;
  const compact = strictDerToCompact(signature.subarray(0, -1));
  return compact !== null && curve.verifyEcdsa(compact, sighash, pubkey);
}
