// Email sign-in: a six-digit code sent to the address, typed back here.

import { api } from "../shared/api";
import type { AccountResult } from "./accounts";
import { byId } from "./dom";
import { sentenceFor, showError, showInfo } from "./messages";
import { type PageContext, signedIn } from "./signed-in";

const line = () => byId("email-msg", HTMLParagraphElement);
const email = () => byId("email", HTMLInputElement).value.trim();

export function wireEmail(page: PageContext): void {
  byId("email-send", HTMLButtonElement).addEventListener("click", async () => {
    const sent = await api("POST", "/api/auth/email-otp/start", { email: email() });
    if (!sent.ok) return showError(line(), await sentenceFor(sent));
    byId("email-step2", HTMLDivElement).hidden = false;
    showInfo(line(), "A 6-digit code is on its way. Type it here.");
  });
  byId("email-verify", HTMLButtonElement).addEventListener("click", async () => {
    const code = byId("email-code", HTMLInputElement).value.trim();
    const body = { email: email(), code, add: page.add };
    await signedIn(page, await api<AccountResult>("POST", "/api/auth/email-otp/verify", body), line());
  });
}
