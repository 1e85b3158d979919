// Legacy "Bitcoin Signed Message" (BIP-137 compact recoverable signatures), P2PKH only:
// recover the key from the 65-byte signature and compare its hash160 with the address hash.
import type { Secp256k1Backend } from "./curve";
import { bytesEqual, compactSize, concatBytes, hash160, sha256d, utf8 } from "./hash";

const MAGIC = utf8("Bitcoin Signed Message:\n");
/** The magic text's CompactSize length, then the text: how every signed message begins. */
const PREFIX = concatBytes(compactSize(MAGIC.length), MAGIC);
const COMPACT_LENGTH = 65;
// BIP-137 header: 27-30 P2PKH uncompressed, 31-34 P2PKH compressed, 35-42 segwit flavours.
const HEADER_MIN = 27;
const HEADER_P2PKH_MAX = 34;
const HEADER_MAX = 42;
const HEADER_COMPRESSED = 31;

/** True for a 65-byte blob whose first byte is a BIP-137 header (27..42). */
export function isCompactSignature(signature: Uint8Array): boolean {
  const header = signature[0] ?? 0;
  return signature.length === COMPACT_LENGTH && header >= HEADER_MIN && header <= HEADER_MAX;
}

/** double-sha256("\x18Bitcoin Signed Message:\n" || varint(len) || message). */
export function legacyMessageHash(message: string): Uint8Array {
  const body = utf8(message);
  return sha256d(concatBytes(PREFIX, compactSize(body.length), body));
}

/**
 * Verifies a BIP-137 signature for a P2PKH address hash. The header must be a P2PKH flag (27-34)
 * and its compression bit selects which key serialization must hash to the address.
 * Like Bitcoin Core's verifymessage, a high-S compact signature is accepted.
 */
export function verifyLegacyP2pkh(
  pubkeyHash: Uint8Array,
  message: string,
  signature: Uint8Array,
  curve: Secp256k1Backend,
): boolean {
  if (!isCompactSignature(signature)) return false;
  const header = signature[0] ?? 0;
  if (header > HEADER_P2PKH_MAX) return false;
  const recovery = (header - HEADER_MIN) & 3;
  const compressed = header >= HEADER_COMPRESSED;
  const pubkey = curve.recoverPublicKey(signature.subarray(1), recovery, legacyMessageHash(message), compressed);
  return pubkey !== null && bytesEqual(hash160(pubkey), pubkeyHash);
}
