// Re-authentication asked inline (issue 27, as Clerk's reverification): a sensitive action that answers 403
// `sudo_required` or `step_up_required` opens the "Confirm it is you" panel with the proofs the reason allows (a
// security key always; for sudo also a Bitcoin signature, an email code, or a provider round trip, each with one of
// this account's own identities). Once a proof is accepted (the cookie now carries a fresh claim) the action is
// tried once more. A provider round trip leaves the page: it comes back to /account?done=reauth.
import { h } from "../../../../../shared/browser/dom";
import { type ApiResult, api } from "../shared/api";
import { type Answer, stepUp } from "../shared/webauthn-client";
import { byId, fitToContent } from "../signin/dom";
import { sentenceFor, showError, showInfo } from "../signin/messages";
import { sentenceForKey } from "../signin/passkey";
import { type Identity, state } from "./state";

type Proof = "sudo" | "step_up";

const panel = () => byId("reauth", HTMLElement);
const line = () => byId("reauth-msg", HTMLParagraphElement);
const methods = () => byId("reauth-methods", HTMLDivElement);

let settle: ((proved: boolean) => void) | undefined;

function close(proved: boolean): void {
  panel().hidden = true;
  methods().replaceChildren();
  showInfo(line(), "");
  settle?.(proved);
  settle = undefined;
}

/** Runs `action`; when it needs a fresher proof, asks for one inline and runs it once more. */
export async function sensitive<T, R extends ApiResult<T> | Answer<T>>(action: () => Promise<R>): Promise<R> {
  const first = await action();
  if (first.ok || (first.reason !== "sudo_required" && first.reason !== "step_up_required")) return first;
  const proved = await confirmItIsYou(first.reason === "step_up_required" ? "step_up" : "sudo");
  return proved ? action() : first;
}

/** Opens the panel with the proofs `kind` accepts; resolves true once one was accepted, false if cancelled. */
export function confirmItIsYou(kind: Proof): Promise<boolean> {
  settle?.(false);
  const why = byId("reauth-why", HTMLParagraphElement);
  why.textContent =
    kind === "step_up"
      ? "This needs one of this account's security keys, used within the last 10 minutes."
      : "This needs a proof of one of this account's sign-in identities within the last 10 minutes.";
  const { identities, keys } = state;
  const options: Node[] = [];
  if (keys.length > 0) options.push(button("Use a security key or passkey", () => withKey()));
  if (kind === "sudo") {
    for (const identity of identities) {
      if (identity.kind === "btc") options.push(button(`Sign with ${identity.value}`, () => withBitcoin(identity)));
      else if (identity.kind === "email")
        options.push(button(`Email a code to ${identity.value}`, () => withEmail(identity)));
      else options.push(providerLink(identity));
    }
  }
  methods().replaceChildren(...options);
  if (options.length === 0) showError(line(), "This account has no security key to confirm with. Add one first.");
  panel().hidden = false;
  panel().scrollIntoView({ block: "nearest" });
  return new Promise((resolve) => {
    settle = resolve;
  });
}

const button = (label: string, onclick: () => unknown) =>
  h("button", { type: "button", class: "secondary", onclick }, label);

/** The provider of an identity whose kind names it (`github`, `google`, `oidc:<issuer>` → `oidc`). */
function providerLink(identity: Identity): Node {
  const provider = identity.kind.split(":")[0] ?? identity.kind;
  const href = `/api/auth/${encodeURIComponent(provider)}/start?intent=reauth&return_to=${encodeURIComponent("/account")}`;
  return h("a", { class: "button secondary", href }, `Continue with ${provider}`);
}

async function accepted(result: ApiResult<unknown>): Promise<void> {
  if (result.ok) return close(true);
  showError(line(), await sentenceFor(result));
}

async function withKey(): Promise<void> {
  showInfo(line(), "Use your security key or passkey now.");
  const stepped: Answer<unknown> = await stepUp();
  if (stepped.ok) return close(true);
  showError(line(), await sentenceForKey(stepped));
}

async function withBitcoin(identity: Identity): Promise<void> {
  const query = new URLSearchParams({ addr: identity.value, audience: location.origin, purpose: "reauth" });
  const challenge = await api<{ message: string; nonce: string }>("GET", `/api/challenge?${query}`);
  if (!challenge.ok) return showError(line(), await sentenceFor(challenge));
  const message = h("textarea", { readonly: true, rows: "1", "aria-label": "The message to sign" });
  message.value = challenge.body.message;
  const signature = h("input", { placeholder: "BIP-322 signature (base64)", autocomplete: "off" });
  const submit = button("Confirm", async () => {
    const body = { address: identity.value, message: challenge.body.message, nonce: challenge.body.nonce };
    await accepted(await api("POST", "/api/auth/reauth/btc", { ...body, signature: signature.value.trim() }));
  });
  methods().replaceChildren(h("p", {}, `Sign this message with ${identity.value}:`), message, signature, submit);
  fitToContent(message);
}

async function withEmail(identity: Identity): Promise<void> {
  const sent = await api("POST", "/api/auth/reauth/email/start", { email: identity.value });
  if (!sent.ok) return showError(line(), await sentenceFor(sent));
  showInfo(line(), `A code is on its way to ${identity.value}.`);
  const code = h("input", { inputmode: "numeric", maxlength: "6", placeholder: "6-digit code" });
  const submit = button("Confirm", async () => {
    const body = { email: identity.value, code: code.value.trim() };
    await accepted(await api("POST", "/api/auth/reauth/email/verify", body));
  });
  methods().replaceChildren(code, submit);
}

export function wireReauth(): void {
  byId("reauth-cancel", HTMLButtonElement).addEventListener("click", () => close(false));
}
