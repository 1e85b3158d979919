// Public message-signature verifier: BIP-322 simple and full proofs, and legacy BIP-137 signmessage for P2PKH.
// Pure (no I/O, no clock) and never throws for any input: every outcome is a verdict. The curve is libsecp256k1 as
// WebAssembly; if it cannot be instantiated the call throws Secp256k1UnavailableError (fail closed: no verdict).
import { base64, hex } from "@scure/base";
import { type BitcoinNetwork, decodeAddress, isAddressOnNetwork } from "./address";
import { decodeProof, isConclusiveToSign, toSignSpend } from "./bip322-proof";
import { toSpendHash } from "./bip322-sighash";
import { verifySpend } from "./bip322-spend";
import type { Secp256k1Backend } from "./curve";
import { isCompactSignature, verifyLegacyP2pkh } from "./legacy";
import { defaultSecp256k1 } from "./secp256k1-module";

export type { BitcoinNetwork } from "./address";
export { bip322MessageHash } from "./bip322-sighash";
export { buildToSignTx, buildToSpendTx } from "./bip322-tx";
export type { Secp256k1Backend } from "./curve";
export { Secp256k1UnavailableError } from "./secp256k1-wasm";

export type SignatureScheme = "bip322" | "legacy";

export type SigFailureReason =
  | "malformed_address"
  | "malformed_signature"
  | "network_mismatch"
  | "unsupported_address"
  | "sig_unsupported_script"
  | "inconclusive"
  | "sig_invalid";

export type SigVerdict = { ok: true; scheme: SignatureScheme } | { ok: false; reason: SigFailureReason };

export interface VerifyMessageInput {
  address: string;
  message: string;
  /** base64, or hex when the whole string is an even number of hex digits (as the OrangeCheck SDK does). */
  signature: string;
  /** Expected network; a different address network gives `network_mismatch`. */
  network?: BitcoinNetwork;
  /**
   * "legacy" accepts only a BIP-137 signature for a P2PKH address. "bip322" or absent tries
   * BIP-322, but a BIP-137 signature for a P2PKH address still verifies (as in bip322-js), and
   * the verdict reports which scheme actually verified.
   */
  scheme?: SignatureScheme;
}

// Bounds decoding work; a one-input to_sign proof is a few hundred bytes.
const MAX_SIGNATURE_CHARS = 8192;
const HEX_TEXT = /^[0-9a-fA-F]+$/;

/** `curve` is for tests (the @noble/curves reference); the default is the isolate's libsecp256k1. */
export function verifyMessageSignature(input: VerifyMessageInput, curve?: Secp256k1Backend): SigVerdict {
  // Outside the try: an unavailable curve must surface as an error, never as a verdict.
  const backend = curve ?? defaultSecp256k1();
  try {
    return verify(input, backend);
  } catch {
    return fail("sig_invalid");
  }
}

function verify(
  { address, message, signature, network, scheme }: VerifyMessageInput,
  curve: Secp256k1Backend,
): SigVerdict {
  const decoded = decodeAddress(address);
  if (!decoded.ok) return fail("malformed_address");
  if (network !== undefined && !isAddressOnNetwork(decoded, network)) return fail("network_mismatch");
  if (decoded.type === "p2wsh" || decoded.type === "witness_unknown") {
    return fail("unsupported_address");
  }
  if (scheme === "legacy" && decoded.type !== "p2pkh") return fail("sig_unsupported_script");
  if (typeof message !== "string") return fail("sig_invalid");
  const bytes = decodeSignatureText(signature);
  if (!bytes) return fail("malformed_signature");

  if (isCompactSignature(bytes)) {
    // OrangeCheck policy: legacy signmessage only for P2PKH.
    if (decoded.type !== "p2pkh") return fail("sig_unsupported_script");
    const valid = verifyLegacyP2pkh(decoded.program, message, bytes, curve);
    return valid ? { ok: true, scheme: "legacy" } : fail("sig_invalid");
  }
  if (scheme === "legacy") return fail("malformed_signature");

  const toSpend = toSpendHash(decoded.script, message);
  const proof = decodeProof(bytes, toSpend);
  if (!proof) return fail("malformed_signature");
  const shape = toSignSpend(proof, toSpend);
  if (!shape.ok) return fail(shape.verdict === "inconclusive" ? "inconclusive" : "sig_invalid");
  // BIP-322 order: script failures are invalid before upgradeable rules make a proof inconclusive.
  const verdict = verifySpend(decoded, toSpend, shape.spend, curve);
  if (verdict === "invalid") return fail("sig_invalid");
  if (verdict === "inconclusive" || !isConclusiveToSign(shape.spend)) return fail("inconclusive");
  return { ok: true, scheme: "bip322" };
}

function decodeSignatureText(text: string): Uint8Array | null {
  if (typeof text !== "string" || text.length === 0 || text.length > MAX_SIGNATURE_CHARS) {
    return null;
  }
  try {
    const bytes = text.length % 2 === 0 && HEX_TEXT.test(text) ? hex.decode(text.toLowerCase()) : base64.decode(text);
    return bytes.length > 0 ? bytes : null;
  } catch {
    return null;
  }
}

function fail(reason: SigFailureReason): SigVerdict {
  return { ok: false, reason };
}
