// Bitcoin sign-in by pasting a BIP-322 signature: ask this host for the message to sign (a challenge for this
// origin), show it whole, and post the signature with the challenge's nonce.

import { api } from "../shared/api";
import type { AccountResult } from "./accounts";
import { byId, fitToContent } from "./dom";
import { sentenceFor, showError, showInfo } from "./messages";
import { type PageContext, signedIn } from "./signed-in";

interface Challenge {
  message: string;
  nonce: string;
}

/** What a signature is checked against: the address, the exact message shown and its nonce. */
export interface Pending {
  address: string;
  message: string;
  nonce: string;
}

const line = () => byId("btc-msg", HTMLParagraphElement);
const addressField = () => byId("btc-address", HTMLInputElement);
const messageArea = () => byId("btc-message", HTMLTextAreaElement);

let pending: Pending | undefined;

/** Asks for a challenge for the address typed in and shows its message; undefined (and a sentence) if refused. */
export async function requestChallenge(address = addressField().value.trim()): Promise<Pending | undefined> {
  const query = new URLSearchParams({ addr: address, audience: location.origin, purpose: "login" });
  const res = await api<Challenge>("GET", `/api/challenge?${query}`);
  if (!res.ok) {
    showError(line(), await sentenceFor(res));
    return undefined;
  }
  pending = { address, message: res.body.message, nonce: res.body.nonce };
  messageArea().value = pending.message;
  byId("btc-step2", HTMLDivElement).hidden = false;
  fitToContent(messageArea());
  return pending;
}

/** Posts a BIP-322 signature of the pending challenge. */
export async function submitSignature(page: PageContext, signature: string): Promise<void> {
  if (!pending) return showError(line(), "Get the message to sign first.");
  const body = { ...pending, signature, add: page.add };
  await signedIn(page, await api<AccountResult>("POST", "/api/auth/signin", body), line());
}

export function wireBitcoin(page: PageContext): void {
  byId("btc-challenge", HTMLButtonElement).addEventListener("click", async () => {
    if (await requestChallenge()) {
      showInfo(line(), "Sign this exact message with your wallet (BIP-322), then paste the signature below.");
    }
  });
  byId("btc-signin", HTMLButtonElement).addEventListener("click", () =>
    submitSignature(page, byId("btc-signature", HTMLInputElement).value.trim()),
  );
  // The message wraps differently at another width: keep it whole.
  addEventListener("resize", () => {
    if (!byId("btc-step2", HTMLDivElement).hidden) fitToContent(messageArea());
  });
}
