// The identities section: the account's addresses, emails and provider subjects (primary address marked), with
// "Make primary" and "Remove"; linking a Bitcoin address (sign a challenge of purpose link), an email (a code) or a
// provider (a round trip that returns here). Each change goes through `sensitive` (re-authentication inline).
import { h } from "../../../../../shared/browser/dom";
import { api } from "../shared/api";
import { byId, fitToContent } from "../signin/dom";
import { sentenceFor, showError, showInfo } from "../signin/messages";
import { confirmItIsYou, sensitive } from "./reauth";
import { type Identity, state, when } from "./state";

const line = () => byId("identities-msg", HTMLParagraphElement);

/** What a person calls an identity's kind. */
function kindLabel(kind: string): string {
  if (kind === "btc") return "Bitcoin address";
  if (kind === "email") return "Email";
  return `Provider: ${kind.split(":")[0]}`;
}

export function renderIdentities(reload: () => Promise<void>): void {
  const items = state.identities.map((identity) => identityRow(identity, reload));
  byId("identity-list", HTMLUListElement).replaceChildren(...items);
}

function identityRow(identity: Identity, reload: () => Promise<void>): HTMLLIElement {
  const act = async (path: string, method: "POST" | "DELETE", body: unknown, done: string) => {
    const result = await sensitive(() => api(method, path, body));
    if (!result.ok) return showError(line(), await sentenceFor(result));
    await reload();
    showInfo(line(), done);
  };
  const encoded = `${encodeURIComponent(identity.kind)}/${encodeURIComponent(identity.value)}`;
  return h(
    "li",
    { dataset: { identity: `${identity.kind}:${identity.value}` } },
    h(
      "span",
      { class: "what" },
      h("strong", {}, kindLabel(identity.kind)),
      " ",
      identity.value,
      identity.primary ? [" ", h("span", { class: "badge" }, "primary")] : [],
      h("br"),
      h("span", { class: "meta" }, `linked ${when(identity.created_at)}`),
    ),
    identity.kind === "btc" && !identity.primary
      ? h(
          "button",
          {
            type: "button",
            class: "secondary",
            onclick: () =>
              act(
                "/api/auth/account/primary-btc",
                "POST",
                { address: identity.value },
                `${identity.value} is primary.`,
              ),
          },
          "Make primary",
        )
      : [],
    h(
      "button",
      {
        type: "button",
        class: "danger",
        onclick: () => act(`/api/auth/identities/${encoded}`, "DELETE", undefined, `Removed ${identity.value}.`),
      },
      "Remove",
    ),
  );
}

export function wireIdentities(reload: () => Promise<void>): void {
  let pending: { address: string; message: string; nonce: string } | undefined;
  byId("link-btc-challenge", HTMLButtonElement).addEventListener("click", async () => {
    const address = byId("link-btc-address", HTMLInputElement).value.trim();
    const query = new URLSearchParams({ addr: address, audience: location.origin, purpose: "link" });
    const challenge = await api<{ message: string; nonce: string }>("GET", `/api/challenge?${query}`);
    if (!challenge.ok) return showError(line(), await sentenceFor(challenge));
    pending = { address, message: challenge.body.message, nonce: challenge.body.nonce };
    const message = byId("link-btc-message", HTMLTextAreaElement);
    message.value = challenge.body.message;
    byId("link-btc-step2", HTMLDivElement).hidden = false;
    fitToContent(message);
    showInfo(line(), "Sign this exact message with that address's wallet (BIP-322), then paste the signature.");
  });
  byId("link-btc-submit", HTMLButtonElement).addEventListener("click", async () => {
    if (!pending) return;
    const body = { ...pending, signature: byId("link-btc-signature", HTMLInputElement).value.trim() };
    const result = await sensitive(() => api("POST", "/api/auth/identities/btc", body));
    if (!result.ok) return showError(line(), await sentenceFor(result));
    byId("link-btc-step2", HTMLDivElement).hidden = true;
    await reload();
    showInfo(line(), `Linked ${body.address}.`);
  });
  byId("link-email-send", HTMLButtonElement).addEventListener("click", async () => {
    const email = byId("link-email", HTMLInputElement).value.trim();
    const sent = await sensitive(() => api("POST", "/api/auth/identities/email/start", { email }));
    if (!sent.ok) return showError(line(), await sentenceFor(sent));
    byId("link-email-step2", HTMLDivElement).hidden = false;
    showInfo(line(), `A code is on its way to ${email}.`);
  });
  byId("link-email-submit", HTMLButtonElement).addEventListener("click", async () => {
    const email = byId("link-email", HTMLInputElement).value.trim();
    const code = byId("link-email-code", HTMLInputElement).value.trim();
    const linked = await sensitive(() => api("POST", "/api/auth/identities/email/verify", { email, code }));
    if (!linked.ok) return showError(line(), await sentenceFor(linked));
    byId("link-email-step2", HTMLDivElement).hidden = true;
    await reload();
    showInfo(line(), `Linked ${email}.`);
  });
}

/**
 * One button per configured provider: a round trip that adds its identity here and comes back to this page. The
 * start needs a fresh sudo_at, so it is asked for here first (the round trip itself leaves the page).
 */
export async function showLinkProviders(): Promise<void> {
  const providers = await api<{ providers: { id: string; label: string }[] }>("GET", "/api/auth/providers");
  const start = async (id: string) => {
    const freshness = await api<{ freshness: { sudo_fresh_until: string | null } }>("GET", "/api/auth/freshness");
    if (!freshness.ok) return showError(line(), await sentenceFor(freshness));
    if (freshness.body.freshness.sudo_fresh_until === null && !(await confirmItIsYou("sudo"))) return;
    location.href = `/api/auth/${encodeURIComponent(id)}/start?intent=link&return_to=${encodeURIComponent("/account")}`;
  };
  const buttons = providers.ok
    ? providers.body.providers.map((p) =>
        h("button", { type: "button", class: "secondary", onclick: () => start(p.id) }, `Link ${p.label}`),
      )
    : [];
  byId("link-providers", HTMLDivElement).replaceChildren(
    ...(buttons.length ? buttons : [h("p", {}, "None configured.")]),
  );
}
