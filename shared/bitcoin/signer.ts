// A BIP-322 signer for keys held as WIF (the kit's CLI and library, the test wallet): a new or imported key, its
// address (p2wpkh default, p2tr, p2pkh), and message signatures built on @scure/btc-signer's own transaction
// signing (not on the verifier's sighash code) — "simple" BIP-322 for segwit, BIP-137 for p2pkh as wallets do.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { base64 } from "@scure/base";
import { NETWORK, p2pkh, p2tr, p2wpkh, RawWitness, TEST_NETWORK, WIF } from "@scure/btc-signer";
import { buildToSignTx, buildToSpendTx } from "./bip322-tx";
import { legacyMessageHash } from "./legacy";

/** p2pkh signs the legacy way (BIP-137 signmessage), as wallets and bip322-js do for 1… addresses. */
export const KEY_TYPES = ["p2wpkh", "p2tr", "p2pkh"] as const;
export type KeyType = (typeof KEY_TYPES)[number];
export type KeyNetwork = "mainnet" | "testnet";

export interface BitcoinKey {
  type: KeyType;
  network: KeyNetwork;
  address: string;
  wif: string;
  /** The base64 signature of `message` (for envelopes: the 64-char hex id). */
  sign(message: string): string;
}

/** BIP-137 compact signature for a compressed-key P2PKH address: header 31 + recovery id, then r and s. */
function signLegacy(privateKey: Uint8Array, message: string): string {
  const recovered = secp256k1.sign(legacyMessageHash(message), privateKey, { prehash: false, format: "recovered" });
  const out = new Uint8Array(65);
  out[0] = 31 + (recovered[0] ?? 0);
  out.set(recovered.subarray(1), 1);
  return base64.encode(out);
}

function keyOf(privateKey: Uint8Array, type: KeyType, network: KeyNetwork): BitcoinKey {
  if (!KEY_TYPES.includes(type)) throw new RangeError(`key type must be one of ${KEY_TYPES.join(", ")}`);
  const net = network === "mainnet" ? NETWORK : TEST_NETWORK;
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const payment =
    type === "p2wpkh"
      ? p2wpkh(publicKey, net)
      : type === "p2pkh"
        ? p2pkh(publicKey, net)
        : p2tr(publicKey.subarray(1), undefined, net);
  return {
    type,
    network,
    address: payment.address as string,
    wif: WIF(net).encode(privateKey),
    sign(message: string): string {
      if (type === "p2pkh") return signLegacy(privateKey, message);
      const toSpend = buildToSpendTx(payment.script, message);
      const toSign = buildToSignTx(toSpend.txid);
      toSign.updateInput(0, {
        witnessUtxo: { script: payment.script, amount: 0n },
        ...(type === "p2tr" && { tapInternalKey: publicKey.subarray(1) }),
      });
      toSign.signIdx(privateKey, 0);
      toSign.finalizeIdx(0);
      const witness = toSign.getInput(0).finalScriptWitness;
      if (!witness) throw new Error("signing produced no witness");
      return base64.encode(RawWitness.encode(witness));
    },
  };
}

/** A fresh random key. */
export function newKey(type: KeyType = "p2wpkh", network: KeyNetwork = "mainnet"): BitcoinKey {
  return keyOf(secp256k1.utils.randomSecretKey(), type, network);
}

/** The key of a WIF (mainnet or testnet, compressed); the address type is the caller's choice. Throws if invalid. */
export function keyFromWif(wif: string, type: KeyType = "p2wpkh"): BitcoinKey {
  for (const network of ["mainnet", "testnet"] as const) {
    let privateKey: Uint8Array;
    try {
      privateKey = WIF(network === "mainnet" ? NETWORK : TEST_NETWORK).decode(wif.trim());
    } catch {
      continue;
    }
    return keyOf(privateKey, type, network);
  }
  throw new RangeError("not a WIF private key (compressed, mainnet or testnet)");
}
