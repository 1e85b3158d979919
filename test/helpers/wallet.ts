// A test wallet: a fresh key and its address, and a BIP-322 "simple" signer built on @scure/btc-signer's own
// transaction signing (not on the verifier's sighash code), so route tests sign the way a wallet does.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { base64 } from "@scure/base";
import { NETWORK, p2pkh, p2tr, p2wpkh, RawWitness, TEST_NETWORK, WIF } from "@scure/btc-signer";
import { buildToSignTx, buildToSpendTx } from "../../shared/bitcoin/bip322-tx";
import { legacyMessageHash } from "../../shared/bitcoin/legacy";

/** BIP-137 compact signature for a compressed-key P2PKH address: header 31 + recovery id, then r and s. */
function signLegacy(privateKey: Uint8Array, message: string): string {
  const recovered = secp256k1.sign(legacyMessageHash(message), privateKey, { prehash: false, format: "recovered" });
  const out = new Uint8Array(65);
  out[0] = 31 + (recovered[0] ?? 0);
  out.set(recovered.subarray(1), 1);
  return base64.encode(out);
}

/** p2pkh signs the legacy way (BIP-137 signmessage), as wallets and bip322-js do for 1… addresses. */
export type WalletKind = "p2wpkh" | "p2tr" | "p2pkh";

export interface Wallet {
  address: string;
  wif: string;
  sign(message: string): string;
}

export function newWallet(kind: WalletKind = "p2wpkh", network: "mainnet" | "testnet" = "mainnet"): Wallet {
  const net = network === "mainnet" ? NETWORK : TEST_NETWORK;
  const privateKey = secp256k1.utils.randomSecretKey();
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const payment =
    kind === "p2wpkh"
      ? p2wpkh(publicKey, net)
      : kind === "p2pkh"
        ? p2pkh(publicKey, net)
        : p2tr(publicKey.subarray(1), undefined, net);
  const address = payment.address as string;
  return {
    address,
    wif: WIF(net).encode(privateKey),
    sign(message: string): string {
      if (kind === "p2pkh") return signLegacy(privateKey, message);
      const toSpend = buildToSpendTx(payment.script, message);
      const toSign = buildToSignTx(toSpend.txid);
      toSign.updateInput(0, {
        witnessUtxo: { script: payment.script, amount: 0n },
        ...(kind === "p2tr" && { tapInternalKey: publicKey.subarray(1) }),
      });
      toSign.signIdx(privateKey, 0);
      toSign.finalizeIdx(0);
      const witness = toSign.getInput(0).finalScriptWitness;
      if (!witness) throw new Error("signing produced no witness");
      return base64.encode(RawWitness.encode(witness));
    },
  };
}
