// Legacy "Bitcoin Signed Message" (BIP-137 compact recoverable signatures), P2PKH only:
// recover the key from the 65-byte signature and compare its hash160 with the address hash.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { CompactSize } from "@scure/btc-signer";
import { bytesEqual, concatBytes, hash160, sha256d, utf8 } from "./hash";

const MAGIC = utf8("Bitcoin Signed Message:\n");
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
  return sha256d(
    concatBytes(CompactSize.encode(BigInt(MAGIC.length)), MAGIC, CompactSize.encode(BigInt(body.length)), body),
  );
}

/**
 * Verifies a BIP-137 signature for a P2PKH address hash. The header must be a P2PKH flag (27-34)
 * and its compression bit selects which key serialization must hash to the address.
 * Like Bitcoin Core's verifymessage, a high-S compact signature is accepted.
 */
export function verifyLegacyP2pkh(pubkeyHash: Uint8Array, message: string, signature: Uint8Array): boolean {
  if (!isCompactSignature(signature)) return false;
  const header = signature[0] ?? 0;
  if (header > HEADER_P2PKH_MAX) return false;
  const recovery = (header - HEADER_MIN) & 3;
  const compressed = header >= HEADER_COMPRESSED;
  try {
    const recovered = secp256k1.recoverPublicKey(
      concatBytes(Uint8Array.of(recovery), signature.subarray(1)),
      legacyMessageHash(message),
      // The digest is already computed: noble v2 would otherwise sha256 it once more.
      { prehash: false },
    );
    const pubkey = secp256k1.Point.fromBytes(recovered).toBytes(compressed);
    return bytesEqual(hash160(pubkey), pubkeyHash);
  } catch {
    return false;
  }
}
