// This browser's accounts: the active one (with "Sign out of this account") and the others of the roster, each
// with "Sign out" (POST /api/auth/roster/signout). Signing out takes power away, so it needs no fresh proof.
import { h } from "../../../../../shared/browser/dom";
import { api } from "../shared/api";
import { label } from "../signin/accounts";
import { byId } from "../signin/dom";
import { sentenceFor, showError, showInfo } from "../signin/messages";
import { state } from "./state";

const line = () => byId("sessions-msg", HTMLParagraphElement);

export function renderSessions(reload: () => Promise<void>): void {
  const { account, roster } = state;
  if (!account) return;
  const active = h(
    "li",
    { dataset: { session: account.did_oc } },
    h("span", { class: "what" }, h("strong", {}, label(account)), " ", h("span", { class: "badge" }, "active")),
    h(
      "button",
      {
        type: "button",
        class: "secondary",
        onclick: async () => {
          const out = await api("POST", "/api/auth/logout?scope=current");
          if (!out.ok) return showError(line(), await sentenceFor(out));
          await reload();
        },
      },
      "Sign out of this account",
    ),
  );
  const others = roster.map((entry) =>
    h(
      "li",
      { dataset: { session: entry.did_oc } },
      h("span", { class: "what" }, label(entry)),
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          onclick: async () => {
            const out = await api("POST", "/api/auth/roster/signout", { did_oc: entry.did_oc });
            if (!out.ok) return showError(line(), await sentenceFor(out));
            await reload();
            showInfo(line(), `Signed ${label(entry)} out of this browser.`);
          },
        },
        "Sign out",
      ),
    ),
  );
  byId("session-list", HTMLUListElement).replaceChildren(active, ...others);
}
