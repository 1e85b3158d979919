// The browser wallets this page can ask for a BIP-322 signature, each behind the same two questions: which address
// will you sign with, and sign this message. Found by what each injects into the page:
// - Unisat: `window.unisat` (docs.unisat.io, "UniSat Wallet API"): requestAccounts, signMessage(…, "bip322-simple").
// - Xverse: `window.XverseProviders.BitcoinProvider`, spoken to through Xverse's own client, @sats-connect/core
//   (wallet_connect, then signMessage with protocol BIP322). Its 160 kB are loaded only when Xverse is chosen.
// - Leather: `window.LeatherProvider` (leather.io developer docs): getAddresses, then signMessage with the address
//   type; Leather signs Bitcoin messages as BIP-322. Its JSON-RPC is two calls, so no library is needed.
// Any refusal (a rejected promise or an error answer, whatever its shape) is `undefined`: the page then says so and
// paste still works.

import { asked, type BrowserWallet } from "./browser-wallet";

export interface WalletChoice {
  name: string;
  open(): Promise<BrowserWallet>;
}

interface UnisatApi {
  requestAccounts(): Promise<string[]>;
  signMessage(message: string, type: "bip322-simple"): Promise<string>;
}

interface LeatherAddress {
  symbol?: string;
  type?: string;
  address: string;
}

interface LeatherApi {
  request(method: "getAddresses"): Promise<{ result?: { addresses?: LeatherAddress[] } }>;
  request(
    method: "signMessage",
    params: { message: string; paymentType: "p2wpkh" },
  ): Promise<{ result?: { signature?: string; address?: string } }>;
}

// `window.XverseProviders` is declared by @sats-connect/core (xverse.ts imports it).
declare global {
  interface Window {
    unisat?: UnisatApi;
    LeatherProvider?: LeatherApi;
  }
}

function unisat(api: UnisatApi): BrowserWallet {
  return {
    address: () => asked(async () => (await api.requestAccounts())[0]),
    sign: (_address, message) => asked(() => api.signMessage(message, "bip322-simple")),
  };
}

/** Leather signs with the account's first address of a type: the native segwit one, the type it defaults to. */
function leather(api: LeatherApi): BrowserWallet {
  return {
    address: () =>
      asked(async () => {
        const { result } = await api.request("getAddresses");
        return result?.addresses?.find((entry) => entry.symbol === "BTC" && entry.type === "p2wpkh")?.address;
      }),
    sign: (address, message) =>
      asked(async () => {
        const { result } = await api.request("signMessage", { message, paymentType: "p2wpkh" });
        return result?.address === address ? result.signature : undefined;
      }),
  };
}

/** The wallets injected into this page, in a fixed order. */
export function installedWallets(): WalletChoice[] {
  const found: WalletChoice[] = [];
  const { unisat: unisatApi, LeatherProvider, XverseProviders } = window;
  if (unisatApi) found.push({ name: "Unisat", open: async () => unisat(unisatApi) });
  if (XverseProviders?.BitcoinProvider) {
    found.push({ name: "Xverse", open: async () => (await import("./xverse")).xverse() });
  }
  if (LeatherProvider) found.push({ name: "Leather", open: async () => leather(LeatherProvider) });
  return found;
}
