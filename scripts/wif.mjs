// A WIF key and its address for scripts/signin.mjs: the given WIF, or a fresh mainnet key.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { NETWORK, p2pkh, p2sh, p2tr, p2wpkh, WIF } from "@scure/btc-signer";

export function generateSigningWif(wif, type = "p2wpkh") {
  const privateKey = wif ? WIF(NETWORK).decode(wif) : secp256k1.utils.randomSecretKey();
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const payment = {
    p2wpkh: () => p2wpkh(publicKey, NETWORK),
    p2tr: () => p2tr(publicKey.subarray(1), undefined, NETWORK),
    p2pkh: () => p2pkh(publicKey, NETWORK),
    "p2sh-p2wpkh": () => p2sh(p2wpkh(publicKey, NETWORK), NETWORK),
  }[type];
  if (!payment) throw new Error(`--type must be p2wpkh, p2tr, p2pkh or p2sh-p2wpkh, not ${type}`);
  return { wif: WIF(NETWORK).encode(privateKey), address: payment().address };
}
