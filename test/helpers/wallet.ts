// A test wallet: a fresh key, its address and a BIP-322 signer. The signing core is the kit's
// (shared/bitcoin/signer.ts, built on @scure/btc-signer's own transaction signing), so tests sign as a wallet does.
import { type BitcoinKey, type KeyNetwork, type KeyType, newKey } from "../../shared/bitcoin/signer";

/** p2pkh signs the legacy way (BIP-137 signmessage), as wallets and bip322-js do for 1… addresses. */
export type WalletKind = KeyType;

export type Wallet = Pick<BitcoinKey, "address" | "wif" | "sign">;

export function newWallet(kind: WalletKind = "p2wpkh", network: KeyNetwork = "mainnet"): Wallet {
  return newKey(kind, network);
}
