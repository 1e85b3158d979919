// The end of every sign-in path on the page: a sentence for a refusal, or "signed in as", earlier errors cleared,
// and then the checked return_to (the server put it in the page) or the refreshed account list.

import type { ApiResult } from "../shared/api";
import { type AccountResult, label, refresh } from "./accounts";
import { clearErrors, sentenceFor, showError, showInfo } from "./messages";

export interface PageContext {
  /** Add the account to this browser's roster (`?add=1`) rather than replace the active one. */
  add: boolean;
  /** Already checked by the server's return-to policy, or null. */
  returnTo: string | null;
}

export async function signedIn(page: PageContext, res: ApiResult<AccountResult>, line: HTMLElement): Promise<void> {
  if (!res.ok) return showError(line, await sentenceFor(res));
  clearErrors();
  showInfo(line, `Signed in as ${label(res.body.account)}.`);
  if (page.returnTo) return location.assign(page.returnTo);
  await refresh();
}
