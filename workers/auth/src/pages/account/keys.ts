// The security keys section: the account's hardware keys and passkeys (name, kind, when added and last used), with
// "Rename" and "Remove"; adding one runs the browser's WebAuthn registration through the shared client
// (../shared/webauthn-client.ts) against the options this host made. Adding needs a fresh sudo_at, removing a fresh
// step-up (or sudo for the last key): both through `sensitive`, which asks for the proof inline.
import { h } from "../../../../../shared/browser/dom";
import { api } from "../shared/api";
import { type Answer, type Key, registerKey, renameKey } from "../shared/webauthn-client";
import { byId } from "../signin/dom";
import { showError, showInfo } from "../signin/messages";
import { sentenceForKey } from "../signin/passkey";
import { sensitive } from "./reauth";
import { state, when } from "./state";

const line = () => byId("keys-msg", HTMLParagraphElement);

export function renderKeys(reload: () => Promise<void>): void {
  const items = state.keys.map((key) => keyRow(key, reload));
  byId("key-list", HTMLUListElement).replaceChildren(
    ...(items.length ? items : [h("li", {}, "No security key or passkey yet.")]),
  );
}

function keyRow(key: Key, reload: () => Promise<void>): HTMLLIElement {
  const rename = async () => {
    const name = prompt("A new name for this key", key.name)?.trim();
    if (!name) return;
    const result = await renameKey(key.id, name);
    if (!result.ok) return showError(line(), await sentenceForKey(result));
    await reload();
    showInfo(line(), `Renamed to ${name}.`);
  };
  const remove = async () => {
    const path = `/api/auth/webauthn/credentials/${encodeURIComponent(key.id)}`;
    const result: Answer<unknown> = await sensitive(() => api("DELETE", path));
    if (!result.ok) return showError(line(), await sentenceForKey(result));
    await reload();
    showInfo(line(), `Removed ${key.name}.`);
  };
  const kind = key.device_type === "multiDevice" ? "passkey (synced)" : "security key";
  return h(
    "li",
    { dataset: { key: key.id } },
    h(
      "span",
      { class: "what" },
      h("strong", {}, key.name),
      ` · ${kind}`,
      h("br"),
      h("span", { class: "meta" }, `added ${when(key.created_at)} · last used ${when(key.last_used_at)}`),
    ),
    h("button", { type: "button", class: "secondary", onclick: rename }, "Rename"),
    h("button", { type: "button", class: "danger", onclick: remove }, "Remove"),
  );
}

export function wireKeys(reload: () => Promise<void>): void {
  byId("key-add", HTMLButtonElement).addEventListener("click", async () => {
    const name = byId("key-name", HTMLInputElement).value.trim();
    const result = await sensitive(() => registerKey(name || undefined));
    if (!result.ok) return showError(line(), await sentenceForKey(result));
    byId("key-name", HTMLInputElement).value = "";
    await reload();
    showInfo(line(), "Added. It can sign you in and confirm it is you.");
  });
}
