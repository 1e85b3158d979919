// Signing in during a deletion's grace period (issue 46, item 3): the sign-in page says when the account will be
// erased and offers to keep it, here and on /account, one click (DELETE /api/auth/account/deletion).
import { api } from "../shared/api";
import { byId } from "./dom";
import { sentenceFor, showError, showInfo } from "./messages";

interface Deletion {
  deletion: { due_at: string } | null;
}

const offer = () => byId("deletion-offer", HTMLElement);

/** Shows the offer when the active account's deletion is scheduled; hides it otherwise (or signed out). */
export async function showDeletionOffer(signedIn: boolean): Promise<void> {
  const state = signedIn ? await api<Deletion>("GET", "/api/auth/account/deletion") : undefined;
  const due = state?.ok ? state.body.deletion?.due_at : undefined;
  offer().hidden = due === undefined;
  if (due !== undefined) {
    byId("deletion-when", HTMLSpanElement).textContent = `${due.replace("T", " ").slice(0, 16)} UTC`;
  }
}

export function wireDeletionOffer(): void {
  byId("deletion-keep", HTMLButtonElement).addEventListener("click", async () => {
    const line = byId("deletion-msg", HTMLParagraphElement);
    const kept = await api("DELETE", "/api/auth/account/deletion");
    if (!kept.ok) return showError(line, await sentenceFor(kept));
    offer().hidden = true;
    showInfo(byId("account-msg", HTMLParagraphElement), "Your account is kept: the deletion is undone.");
  });
}
