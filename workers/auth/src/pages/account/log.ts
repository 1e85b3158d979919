// The account log: every change to how this account is reached, newest first, with when and whether this browser's
// session made it; "Older entries" pages on. Details are shown as the API gives them (never a secret there).
import { h } from "../../../../../shared/browser/dom";
import { api } from "../shared/api";
import { byId } from "../signin/dom";
import { when } from "./state";

interface Entry {
  seq: number;
  event_type: string;
  detail: Record<string, unknown> | null;
  this_session: boolean;
  at: string;
}

/** What happened, in words. */
const SAID: Record<string, string> = {
  "identity.linked": "Identity linked",
  "identity.unlinked": "Identity removed",
  "primary_btc.changed": "Primary address chosen",
  reauthenticated: "Confirmed it was you",
  "hardware_key.registered": "Security key added",
  "hardware_key.renamed": "Security key renamed",
  "hardware_key.revoked": "Security key removed",
  "recovery.set": "Recovery address set",
  "recovery.removed": "Recovery address removed",
  "recovery.signed_in": "Signed in through the recovery address",
  "account.merged": "Another account merged in",
  "session.signed_out": "Signed out of a browser",
  "account.deletion_scheduled": "Deletion of the account asked",
  "account.deletion_cancelled": "Deletion of the account undone",
};

function detailText(detail: Record<string, unknown> | null): string {
  if (!detail) return "";
  return Object.entries(detail)
    .map(([key, value]) => `${key}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}`)
    .join(", ");
}

export async function loadLog(before?: number): Promise<void> {
  const query = before === undefined ? "" : `?before=${before}`;
  const page = await api<{ events: Entry[]; next_before: number | null }>("GET", `/api/auth/account/log${query}`);
  const list = byId("log-list", HTMLUListElement);
  const more = byId("log-more", HTMLButtonElement);
  if (!page.ok) return;
  const rows = page.body.events.map((e) =>
    h(
      "li",
      { dataset: { event: e.event_type } },
      h(
        "span",
        { class: "what" },
        h("strong", {}, SAID[e.event_type] ?? e.event_type),
        " ",
        detailText(e.detail),
        h("br"),
        h("span", { class: "meta" }, `${when(e.at)}${e.this_session ? " · this browser" : ""}`),
      ),
    ),
  );
  if (before === undefined) list.replaceChildren(...(rows.length ? rows : [h("li", {}, "Nothing yet.")]));
  else list.append(...rows);
  const next = page.body.next_before;
  more.hidden = next === null;
  more.onclick = next === null ? null : () => loadLog(next);
}
