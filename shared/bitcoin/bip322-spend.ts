// Checks that to_sign input 0 satisfies the address's script, for the single-key templates we
// interpret: P2PKH, P2WPKH, P2SH-P2WPKH and P2TR key path. Anything else is "inconclusive".
import type { DecodedAddress } from "./address";
import type { ToSignSpend } from "./bip322-proof";
import { legacySighash, segwitV0Sighash, taprootKeyPathSighash } from "./bip322-sighash";
import type { Secp256k1Backend } from "./curve";
import { verifyScriptEcdsa } from "./ecdsa";
import { bytesEqual, concatBytes, hash160 } from "./hash";

export type SpendVerdict = "valid" | "invalid" | "inconclusive";

const SIGHASH_DEFAULT = 0x00;
const SIGHASH_ALL = 0x01;

/** `toSpend` is to_spend's hash in internal byte order (to_sign's outpoint). */
export function verifySpend(
  address: DecodedAddress,
  toSpend: Uint8Array,
  spend: ToSignSpend,
  curve: Secp256k1Backend,
): SpendVerdict {
  switch (address.type) {
    case "p2pkh":
      return verifyP2pkh(address, toSpend, spend, curve);
    case "p2wpkh":
      if (spend.scriptSig !== null && spend.scriptSig.length > 0) return "invalid";
      return verifyP2wpkhWitness(address.program, toSpend, spend, curve);
    case "p2sh":
      return verifyP2shP2wpkh(address, toSpend, spend, curve);
    case "p2tr":
      return verifyTaprootKeyPath(address, toSpend, spend, curve);
    default:
      return "inconclusive";
  }
}

function verifyP2pkh(
  address: DecodedAddress,
  toSpend: Uint8Array,
  spend: ToSignSpend,
  curve: Secp256k1Backend,
): SpendVerdict {
  // P2PKH has no simple format (its signature lives in scriptSig), and carries no witness.
  if (spend.scriptSig === null || spend.witness.length > 0) return "invalid";
  const pushes = parseDirectPushes(spend.scriptSig);
  const [signature, pubkey] = pushes ?? [];
  if (pushes?.length !== 2 || !signature || !pubkey) return "invalid";
  if (!bytesEqual(hash160(pubkey), address.program)) return "invalid";
  const sighash = legacySighash(toSpend, spend, address.script);
  return verifyScriptEcdsa(signature, pubkey, sighash, false, curve) ? "valid" : "invalid";
}

function verifyP2wpkhWitness(
  keyHash: Uint8Array,
  toSpend: Uint8Array,
  spend: ToSignSpend,
  curve: Secp256k1Backend,
): SpendVerdict {
  const [signature, pubkey] = spend.witness;
  if (spend.witness.length !== 2 || !signature || !pubkey) return "invalid";
  if (!bytesEqual(hash160(pubkey), keyHash)) return "invalid";
  // BIP-143: the scriptCode of a P2WPKH spend is the P2PKH script of the key hash.
  // OP_DUP OP_HASH160 PUSH20[keyHash] OP_EQUALVERIFY OP_CHECKSIG
  const scriptCode = concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), keyHash, Uint8Array.of(0x88, 0xac));
  const sighash = segwitV0Sighash(toSpend, spend, scriptCode);
  return verifyScriptEcdsa(signature, pubkey, sighash, true, curve) ? "valid" : "invalid";
}

function verifyP2shP2wpkh(
  address: DecodedAddress,
  toSpend: Uint8Array,
  spend: ToSignSpend,
  curve: Secp256k1Backend,
): SpendVerdict {
  let keyHash: Uint8Array;
  if (spend.scriptSig === null) {
    // Simple format: the scriptSig is implied, the push of 0014<hash160(witness pubkey)>.
    const pubkey = spend.witness[1];
    if (spend.witness.length !== 2 || !pubkey) return "invalid";
    keyHash = hash160(pubkey);
  } else {
    const pushes = parseDirectPushes(spend.scriptSig);
    const redeemScript = pushes?.length === 1 ? pushes[0] : undefined;
    if (!redeemScript || !bytesEqual(hash160(redeemScript), address.program)) return "invalid";
    // A different redeem script (e.g. nested P2WSH) is a script we do not interpret.
    if (redeemScript.length !== 22 || redeemScript[0] !== 0x00 || redeemScript[1] !== 0x14) {
      return "inconclusive";
    }
    keyHash = redeemScript.subarray(2);
  }
  // OP_0 PUSH20[keyHash]
  const redeemScript = concatBytes(Uint8Array.of(0x00, 0x14), keyHash);
  if (!bytesEqual(hash160(redeemScript), address.program)) return "invalid";
  return verifyP2wpkhWitness(keyHash, toSpend, spend, curve);
}

function verifyTaprootKeyPath(
  address: DecodedAddress,
  toSpend: Uint8Array,
  spend: ToSignSpend,
  curve: Secp256k1Backend,
): SpendVerdict {
  if (spend.scriptSig !== null && spend.scriptSig.length > 0) return "invalid";
  const [signature] = spend.witness;
  if (!signature) return "invalid";
  // Two or more items mean a script-path spend or an annex: not interpreted here.
  if (spend.witness.length > 1) return "inconclusive";
  let hashType: typeof SIGHASH_DEFAULT | typeof SIGHASH_ALL;
  if (signature.length === 64) hashType = SIGHASH_DEFAULT;
  else if (signature.length === 65 && signature[64] === SIGHASH_ALL) hashType = SIGHASH_ALL;
  else return "invalid";
  // The address carries the output key (already tweaked): verify against it directly.
  const sighash = taprootKeyPathSighash(toSpend, spend, address.script, hashType);
  return curve.verifySchnorr(signature.subarray(0, 64), sighash, address.program) ? "valid" : "invalid";
}

/**
 * Splits a scriptSig made only of direct pushes (opcodes 0x01-0x4b); null for anything else.
 * Signatures, keys and a P2WPKH redeem script are all shorter than 76 bytes, so a direct push is
 * their only MINIMALDATA encoding.
 */
function parseDirectPushes(script: Uint8Array): Uint8Array[] | null {
  const pushes: Uint8Array[] = [];
  let i = 0;
  while (i < script.length) {
    const size = script[i] ?? 0;
    if (size < 0x01 || size > 0x4b || i + 1 + size > script.length) return null;
    pushes.push(script.subarray(i + 1, i + 1 + size));
    i += 1 + size;
  }
  return pushes;
}
