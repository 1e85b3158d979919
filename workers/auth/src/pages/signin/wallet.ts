// Bitcoin sign-in with a browser wallet (Unisat's injected `window.unisat`): the wallet shares its address, signs
// the challenge as BIP-322 (simple), and the signature is posted exactly as a pasted one. A missing or refusing
// wallet leaves the paste path as it was, with a sentence saying so.
import { requestChallenge, submitSignature } from "./bitcoin";
import { byId } from "./dom";
import { showError, showInfo } from "./messages";
import type { PageContext } from "./signed-in";

/** The part of Unisat's provider API this page uses (docs.unisat.io, "UniSat Wallet API"). */
interface UnisatWallet {
  requestAccounts(): Promise<string[]>;
  signMessage(message: string, type: "bip322-simple"): Promise<string>;
}

declare global {
  interface Window {
    unisat?: UnisatWallet;
  }
}

const NO_WALLET = "No browser wallet was found. Sign the message in your wallet and paste the signature below.";
const NO_ADDRESS = "The wallet did not share an address. You can still sign the message and paste the signature.";
const NO_SIGNATURE = "The wallet did not sign. You can still sign the message elsewhere and paste the signature.";

const line = () => byId("btc-msg", HTMLParagraphElement);

/** Runs one wallet step; a refusal (a rejected promise, whatever its shape) becomes undefined. */
async function asked<T>(step: () => Promise<T>): Promise<T | undefined> {
  try {
    return await step();
  } catch {
    return undefined;
  }
}

async function signInWithWallet(page: PageContext): Promise<void> {
  const wallet = window.unisat;
  if (!wallet) return showError(line(), NO_WALLET);
  const [address] = (await asked(() => wallet.requestAccounts())) ?? [];
  if (!address) return showError(line(), NO_ADDRESS);
  byId("btc-address", HTMLInputElement).value = address;
  const pending = await requestChallenge(address);
  if (!pending) return;
  showInfo(line(), "Confirm the message in your wallet.");
  const signature = await asked(() => wallet.signMessage(pending.message, "bip322-simple"));
  if (!signature) return showError(line(), NO_SIGNATURE);
  byId("btc-signature", HTMLInputElement).value = signature;
  await submitSignature(page, signature);
}

export function wireWallet(page: PageContext): void {
  byId("btc-wallet", HTMLButtonElement).addEventListener("click", () => signInWithWallet(page));
}
