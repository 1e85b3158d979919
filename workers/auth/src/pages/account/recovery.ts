// The recovery address section: the address that can get this account back when every identity is lost (shown
// with when it was proven), set or changed by a code sent to the new address, or removed; each with a fresh sudo_at
// (through `sensitive`). The old address is told by mail; the page says so.
import { api } from "../shared/api";
import { byId } from "../signin/dom";
import { sentenceFor, showError, showInfo } from "../signin/messages";
import { sensitive } from "./reauth";
import { state, when } from "./state";

const line = () => byId("recovery-msg", HTMLParagraphElement);

export function renderRecovery(): void {
  const { recovery } = state;
  byId("recovery-now", HTMLParagraphElement).textContent = recovery
    ? `${recovery.email} (proven ${when(recovery.set_at)})`
    : "None. Without one, losing every identity above means losing the account.";
  byId("recovery-remove", HTMLButtonElement).hidden = recovery === null;
  byId("recovery-send", HTMLButtonElement).textContent = recovery
    ? "Send a code to change it to this address"
    : "Send a code to this address";
}

export function wireRecovery(reload: () => Promise<void>): void {
  const email = () => byId("recovery-email", HTMLInputElement).value.trim();
  byId("recovery-send", HTMLButtonElement).addEventListener("click", async () => {
    const sent = await sensitive(() => api("POST", "/api/auth/recovery/start", { email: email() }));
    if (!sent.ok) return showError(line(), await sentenceFor(sent));
    byId("recovery-step2", HTMLDivElement).hidden = false;
    showInfo(line(), `A code is on its way to ${email()}.`);
  });
  byId("recovery-submit", HTMLButtonElement).addEventListener("click", async () => {
    const code = byId("recovery-code", HTMLInputElement).value.trim();
    const previous = state.recovery?.email;
    const set = await sensitive(() => api("POST", "/api/auth/recovery/verify", { email: email(), code }));
    if (!set.ok) return showError(line(), await sentenceFor(set));
    byId("recovery-step2", HTMLDivElement).hidden = true;
    await reload();
    showInfo(line(), previous ? `Changed. ${previous} was told by mail.` : `${email()} can now recover this account.`);
  });
  byId("recovery-remove", HTMLButtonElement).addEventListener("click", async () => {
    const previous = state.recovery?.email;
    const removed = await sensitive(() => api("DELETE", "/api/auth/recovery"));
    if (!removed.ok) return showError(line(), await sentenceFor(removed));
    await reload();
    showInfo(line(), `Removed. ${previous ?? "The old address"} was told by mail.`);
  });
}
