// Passkey sign-in on the sign-in page: the "Sign in with a passkey" button, and the browser's passkey autofill on the
// email field (`autocomplete="username webauthn"`) where the browser offers it. The button aborts a waiting autofill
// (one ceremony at a time), which then ends quietly.
import { type Answer, type CeremonyFailure, passkeySignIn, supportsAutofill } from "../shared/webauthn-client";
import type { AccountResult } from "./accounts";
import { byId } from "./dom";
import { sentenceFor, showError } from "./messages";
import { type PageContext, signedIn } from "./signed-in";

const line = () => byId("passkey-msg", HTMLParagraphElement);

/** What a person reads when the browser, not the host, ended the ceremony. */
export const CEREMONY_SENTENCES: Record<CeremonyFailure, string> = {
  cancelled: "The security key or passkey prompt was closed, so nothing changed.",
  unsupported: "This browser cannot use security keys or passkeys.",
  failed: "The browser could not use a security key or passkey. Try again.",
};

export async function sentenceForKey(res: Answer<unknown> & { ok: false }): Promise<string> {
  return res.ceremony ? CEREMONY_SENTENCES[res.ceremony] : sentenceFor(res);
}

async function finish(page: PageContext, res: Answer<AccountResult>): Promise<void> {
  if (res.ok) return signedIn(page, res, line());
  showError(line(), await sentenceForKey(res));
}

/**
 * Waits for a passkey picked in the autofill. Quiet when it never started (the options were refused: the button
 * still works and says why) or was aborted (by the button or a registration, which speak for themselves). Armed
 * again only after a person picked a passkey whose challenge had expired, so a refusing host is never polled.
 */
async function armAutofill(page: PageContext): Promise<void> {
  if (!(await supportsAutofill())) return;
  const res = await passkeySignIn<AccountResult>(page.add, true);
  if (!res.ok && (res.started === false || res.ceremony === "cancelled")) return;
  await finish(page, res);
  if (!res.ok && res.reason === "webauthn_challenge_invalid") void armAutofill(page);
}

export function wirePasskey(page: PageContext): void {
  byId("passkey-signin", HTMLButtonElement).addEventListener("click", async () => {
    await finish(page, await passkeySignIn<AccountResult>(page.add));
  });
  void armAutofill(page);
}
