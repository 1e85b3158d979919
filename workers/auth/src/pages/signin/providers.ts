// Provider sign-in: a button per configured provider, and the sentence for a provider sign-in that came back
// refused or cancelled (the callback sends the browser here with `?error=<reason>`).
import { api } from "../shared/api";
import { byId } from "./dom";
import { sentenceFor, showError } from "./messages";
import type { PageContext } from "./signed-in";

interface Providers {
  providers: { id: string; label: string }[];
}

export async function showProviders(page: PageContext): Promise<void> {
  const res = await api<Providers>("GET", "/api/auth/providers");
  const list = byId("providers", HTMLDivElement);
  for (const provider of res.ok ? res.body.providers : []) {
    const link = document.createElement("a");
    link.className = "button";
    link.textContent = `Continue with ${provider.label}`;
    link.dataset.provider = provider.id;
    const query = new URLSearchParams({ return_to: page.returnTo ?? `/signin${page.add ? "?add=1" : ""}` });
    if (page.add) query.set("add", "1");
    link.href = `/api/auth/${encodeURIComponent(provider.id)}/start?${query}`;
    list.append(link);
  }
  if (!list.children.length) list.textContent = "No providers are configured.";
}

/**
 * A refusal the callback sent back, as its sentence (an unknown value reads as a general failure: the query is
 * anyone's to write, so it only ever selects a sentence). Taken out of the address bar so a reload does not repeat it.
 */
export async function showReturnedError(): Promise<void> {
  const url = new URL(location.href);
  const reason = url.searchParams.get("error");
  if (reason === null) return;
  showError(byId("providers-msg", HTMLParagraphElement), await sentenceFor({ reason }));
  url.searchParams.delete("error");
  history.replaceState(null, "", url);
}
