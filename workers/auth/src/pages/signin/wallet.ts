// Bitcoin sign-in with a browser wallet (wallets.ts: Unisat, Xverse, Leather): the wallet shares its address, signs
// the challenge as BIP-322, and the signature is posted exactly as a pasted one. With several wallets installed the
// person picks one; a missing or refusing wallet leaves the paste path as it was, with a sentence saying so.
import { requestChallenge, submitSignature } from "./bitcoin";
import { byId } from "./dom";
import { showError, showInfo } from "./messages";
import type { PageContext } from "./signed-in";
import { installedWallets, type WalletChoice } from "./wallets";

const NO_WALLET = "No browser wallet was found. Sign the message in your wallet and paste the signature below.";
const NO_ADDRESS = "The wallet did not share an address. You can still sign the message and paste the signature.";
const NO_SIGNATURE = "The wallet did not sign. You can still sign the message elsewhere and paste the signature.";
const NOT_LOADED = "The wallet's connector did not load. Reload the page, or sign elsewhere and paste the signature.";

const line = () => byId("btc-msg", HTMLParagraphElement);
const chooser = () => byId("btc-wallets", HTMLDivElement);

async function signInWith(page: PageContext, choice: WalletChoice): Promise<void> {
  chooser().hidden = true;
  const wallet = await choice.open().catch(() => undefined);
  if (!wallet) return showError(line(), NOT_LOADED);
  showInfo(line(), `Share your address in ${choice.name}.`);
  const address = await wallet.address();
  if (!address) return showError(line(), NO_ADDRESS);
  byId("btc-address", HTMLInputElement).value = address;
  const pending = await requestChallenge(address);
  if (!pending) return;
  showInfo(line(), `Confirm the message in ${choice.name}.`);
  const signature = await wallet.sign(address, pending.message);
  if (!signature) return showError(line(), NO_SIGNATURE);
  byId("btc-signature", HTMLInputElement).value = signature;
  await submitSignature(page, signature);
}

/** One button per installed wallet, shown when there is more than one to choose from. */
function offer(page: PageContext, choices: WalletChoice[]): void {
  const buttons = choices.map((choice) => {
    const button = document.createElement("button");
    button.className = "secondary";
    button.textContent = choice.name;
    button.addEventListener("click", () => signInWith(page, choice));
    return button;
  });
  chooser().replaceChildren(...buttons);
  chooser().hidden = false;
  showInfo(line(), "Choose the wallet to sign in with.");
}

export function wireWallet(page: PageContext): void {
  byId("btc-wallet", HTMLButtonElement).addEventListener("click", () => {
    const choices = installedWallets();
    const [only] = choices;
    if (!only) return showError(line(), NO_WALLET);
    if (choices.length === 1) return signInWith(page, only);
    offer(page, choices);
  });
}
