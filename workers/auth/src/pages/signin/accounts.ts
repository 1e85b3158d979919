// The browser's accounts: who is signed in (by name, email or address, never a raw did), the roster with a switch
// button each, and the sign-out buttons, shown only while someone is signed in.
import { api } from "../shared/api";
import { showDeletionOffer } from "./deletion-offer";
import { byId } from "./dom";
import { clearErrors, sentenceFor, showError } from "./messages";

/** The Account resource of service-spec.md, as GET /api/auth/me and the sign-in routes answer it. */
export interface Account {
  did_oc: string;
  display_name: string | null;
  primary_btc: string | null;
  display_identity: { kind: string; value: string };
}

export interface AccountResult {
  account: Account;
}

interface Me {
  account: Account;
  roster: Account[];
}

/** How a person knows an account: its name, else the address or email it shows; a did only as a short tail. */
export function label(account: Account): string {
  if (account.display_name) return account.display_name;
  const { kind, value } = account.display_identity;
  return kind === "did" ? `Account …${account.did_oc.slice(-6)}` : value;
}

const active = () => byId("active", HTMLParagraphElement);
const message = () => byId("account-msg", HTMLParagraphElement);

export async function refresh(): Promise<void> {
  const me = await api<Me>("GET", "/api/auth/me");
  const list = byId("accounts", HTMLUListElement);
  const signoutCurrent = byId("signout-current", HTMLButtonElement);
  const signoutAll = byId("signout-all", HTMLButtonElement);
  list.replaceChildren();
  if (!me.ok) {
    active().textContent = "Not signed in.";
    delete active().dataset.did;
    signoutCurrent.hidden = true;
    signoutAll.hidden = true;
    byId("account-link", HTMLAnchorElement).hidden = true;
    if (me.status !== 401) showError(message(), await sentenceFor(me));
    await showDeletionOffer(false);
    return;
  }
  active().textContent = `Signed in as ${label(me.body.account)}`;
  active().dataset.did = me.body.account.did_oc;
  signoutCurrent.hidden = false;
  signoutAll.hidden = me.body.roster.length === 0;
  byId("account-link", HTMLAnchorElement).hidden = false;
  for (const entry of me.body.roster) list.append(rosterItem(entry));
  await showDeletionOffer(true);
}

function rosterItem(entry: Account): HTMLLIElement {
  const item = document.createElement("li");
  item.textContent = `${label(entry)} `;
  const button = document.createElement("button");
  button.textContent = "Switch";
  button.className = "secondary";
  button.dataset.switch = entry.did_oc;
  button.addEventListener("click", async () => {
    const switched = await api("POST", "/api/auth/switch", { did_oc: entry.did_oc });
    if (switched.ok) clearErrors();
    else showError(message(), await sentenceFor(switched));
    await refresh();
  });
  item.append(button);
  return item;
}

export function wireSignOut(): void {
  for (const [id, scope] of [
    ["signout-current", "current"],
    ["signout-all", "all"],
  ] as const) {
    byId(id, HTMLButtonElement).addEventListener("click", async () => {
      const out = await api("POST", `/api/auth/logout?scope=${scope}`);
      if (out.ok) clearErrors();
      else showError(message(), await sentenceFor(out));
      await refresh();
    });
  }
}
