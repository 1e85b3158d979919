// Message signatures for the verifier agreement tests (workerd and Node): every address type signed the way wallets
// sign (btc-signer's own transaction signing for BIP-322, BIP-137 compact signatures for P2PKH), the vectors, and
// mutations of a valid signature (one byte flipped, another message, another address, the high-S twin).
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import { base64 } from "@scure/base";
import { p2pkh, p2sh, p2tr, p2wpkh, RawTx, RawWitness, Transaction } from "@scure/btc-signer";
import { buildToSpendTx } from "../../shared/bitcoin/bip322-tx";
import { legacyMessageHash } from "../../shared/bitcoin/legacy";
import tv21 from "../vectors/oc-attest/tv21.json";
import tv22 from "../vectors/oc-attest/tv22.json";
import tv23 from "../vectors/oc-attest/tv23.json";

/** p2pkh-legacy: BIP-137 (what wallets and bip322-js make for 1… addresses); p2pkh-full: a BIP-322 full proof. */
export const PROOF_KINDS = ["p2pkh-legacy", "p2pkh-full", "p2sh-p2wpkh", "p2wpkh", "p2tr"] as const;
export type ProofKind = (typeof PROOF_KINDS)[number];
export const MUTATIONS = ["none", "flip", "message", "address", "high-s"] as const;
export type Mutation = (typeof MUTATIONS)[number];

export interface SignedMessage {
  address: string;
  message: string;
  /** base64 */
  signature: string;
}

const N = secp256k1.Point.Fn.ORDER;

function paymentOf(kind: ProofKind, key: Uint8Array) {
  const pub = secp256k1.getPublicKey(key, true);
  if (kind === "p2pkh-legacy" || kind === "p2pkh-full") return p2pkh(pub);
  if (kind === "p2wpkh") return p2wpkh(pub);
  if (kind === "p2sh-p2wpkh") return p2sh(p2wpkh(pub));
  return p2tr(schnorr.getPublicKey(key));
}

export function addressOf(kind: ProofKind, key: Uint8Array): string {
  return paymentOf(kind, key).address ?? "";
}

/** Signs `message` for `key`'s address of `kind`: simple format for segwit unless `full`, always full for P2PKH. */
export function signMessage(kind: ProofKind, key: Uint8Array, message: string, full = false): SignedMessage {
  const address = addressOf(kind, key);
  if (kind === "p2pkh-legacy") {
    const sig = secp256k1.sign(legacyMessageHash(message), key, { prehash: false, format: "recovered" });
    return { address, message, signature: base64.encode(Uint8Array.of(31 + (sig[0] ?? 0), ...sig.subarray(1))) };
  }
  const pay = paymentOf(kind, key);
  const toSpend = buildToSpendTx(pay.script, message);
  const tx = new Transaction({ version: 0, allowUnknownOutputs: true });
  tx.addInput({
    txid: toSpend.txid,
    index: 0,
    sequence: 0,
    ...(kind === "p2pkh-full" ? { nonWitnessUtxo: toSpend.raw } : { witnessUtxo: { script: pay.script, amount: 0n } }),
    ...("redeemScript" in pay && pay.redeemScript ? { redeemScript: pay.redeemScript } : {}),
    ...("tapInternalKey" in pay ? { tapInternalKey: pay.tapInternalKey } : {}),
  });
  tx.addOutput({ script: Uint8Array.of(0x6a), amount: 0n });
  tx.sign(key);
  tx.finalize();
  const witness = tx.getInput(0).finalScriptWitness;
  const simple = kind !== "p2pkh-full" && !full && witness;
  return { address, message, signature: base64.encode(simple ? RawWitness.encode(witness) : tx.extract()) };
}

/** `signed` changed by `mutation`; `other` is another key (for "address"), `at` and `mask` pick the flipped byte. */
export function mutate(
  kind: ProofKind,
  signed: SignedMessage,
  mutation: Mutation,
  { other, at, mask }: { other: Uint8Array; at: number; mask: number },
): SignedMessage {
  const bytes = base64.decode(signed.signature);
  switch (mutation) {
    case "none":
      return signed;
    case "flip": {
      const flipped = bytes.slice();
      const i = at % flipped.length;
      flipped[i] = (flipped[i] ?? 0) ^ (mask & 0xff || 1);
      return { ...signed, signature: base64.encode(flipped) };
    }
    case "message":
      return { ...signed, message: `${signed.message}.` };
    case "address":
      return { ...signed, address: addressOf(kind, other) };
    case "high-s":
      return { ...signed, signature: base64.encode(highS(kind, bytes)) };
  }
}

/** The high-S twin: the same (r, n - s), a mathematically valid signature that BIP-322's LOW_S rule refuses. */
function highS(kind: ProofKind, bytes: Uint8Array): Uint8Array {
  if (kind === "p2tr") return bytes; // BIP-340 has no S malleability
  if (kind === "p2pkh-legacy") {
    const sig = secp256k1.Signature.fromBytes(bytes.subarray(1), "compact");
    const twin = new secp256k1.Signature(sig.r, N - sig.s).toBytes("compact");
    // Negating s flips the parity of R in the recovery: the twin recovers the same key with the other id.
    const header = bytes[0] ?? 0;
    const recovery = (header - 27) & 3;
    return Uint8Array.of(header - recovery + (recovery ^ 1), ...twin);
  }
  const twinDer = (item: Uint8Array) => {
    const sig = secp256k1.Signature.fromBytes(item.subarray(0, -1), "der");
    return Uint8Array.of(...new secp256k1.Signature(sig.r, N - sig.s).toBytes("der"), item[item.length - 1] ?? 0);
  };
  try {
    const [sig, ...rest] = RawWitness.decode(bytes);
    return sig ? RawWitness.encode([twinDer(sig), ...rest]) : bytes;
  } catch {
    // a full proof: the signature is in input 0's witness, or (P2PKH) first in its scriptSig
  }
  const tx = RawTx.decode(bytes);
  const input = tx.inputs[0];
  const [sig, ...rest] = tx.witnesses?.[0] ?? [];
  if (sig) return RawTx.encode({ ...tx, witnesses: [[twinDer(sig), ...rest]] });
  if (!input) return bytes;
  // scriptSig: PUSH(sig) PUSH(pubkey), both direct pushes.
  const script = input.finalScriptSig;
  const der = script.subarray(1, 1 + (script[0] ?? 0));
  const twin = twinDer(der);
  const scriptSig = Uint8Array.of(twin.length, ...twin, ...script.subarray(1 + der.length));
  return RawTx.encode({ ...tx, inputs: [{ ...input, finalScriptSig: scriptSig }] });
}

/** Every signature vector the verifier's tests use: BIP-322's own (P2WPKH, P2TR) and OC Attest tv21-tv23. */
export const SIGNATURE_VECTORS: (SignedMessage & { valid: boolean })[] = [
  {
    address: "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
    message: "Hello World",
    signature:
      "AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=",
    valid: true,
  },
  {
    address: "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
    message: "",
    signature:
      "AkcwRAIgM2gBAQqvZX15ZiysmKmQpDrG83avLIT492QBzLnQIxYCIBaTpOaD20qRlEylyxFSeEA2ba9YOixpX8z46TSDtS40ASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=",
    valid: true,
  },
  {
    address: "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
    message: "Hello World",
    signature:
      "AkgwRQIhAOzyynlqt93lOKJr+wmmxIens//zPzl9tqIOua93wO6MAiBi5n5EyAcPScOjf1lAqIUIQtr3zKNeavYabHyR8eGhowEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy",
    valid: true,
  },
  {
    address: "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
    message: "",
    signature:
      "AkgwRQIhAPkJ1Q4oYS0htvyuSFHLxRQpFAY56b70UvE7Dxazen0ZAiAtZfFz1S6T6I23MWI2lK/pcNTWncuyL8UL+oMdydVgzAEhAsfxIAMZZEKUPYWI4BruhAQjzFT8FSFSajuFwrDL1Yhy",
    valid: true,
  },
  {
    address: "bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3",
    message: "Hello World",
    signature: "AUHd69PrJQEv+oKTfZ8l+WROBHuy9HKrbFCJu7U1iK2iiEy1vMU5EfMtjc+VSHM7aU0SDbak5IUZRVno2P5mjSafAQ==",
    valid: true,
  },
  ...[tv21, tv22, tv23].map((v) => ({ ...v.input, valid: v.expected.valid })),
];
