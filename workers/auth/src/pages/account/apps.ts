// The apps sections (issue 33): the apps this account allowed to sign it in (each taken back with one click), and
// the apps it registered as their owner (register one: a confidential app's secret is shown once; revoke one).
// Taking power away needs no fresh proof; registering an app gives it none over this account.
import { type Children, h } from "../../../../../shared/browser/dom";
import { api } from "../shared/api";
import { byId } from "../signin/dom";
import { sentenceFor, showError, showInfo } from "../signin/messages";
import { when } from "./state";

interface Consent {
  client_id: string;
  name: string;
  scopes: string[];
  created_at: string;
}
interface Client {
  client_id: string;
  name: string;
  type: "public" | "confidential";
  redirect_uris: string[];
  created_at: string;
}

const appsLine = () => byId("apps-msg", HTMLParagraphElement);
const clientsLine = () => byId("clients-msg", HTMLParagraphElement);

/**
 * One row: what it is, and a button that DELETEs `path`, then lists again and says `done` on `line` (or the
 * reason it was refused). `ask`, when given, is confirmed first.
 */
function removableRow(options: {
  dataset: Record<string, string>;
  what: Children;
  button: string;
  path: string;
  line: () => HTMLParagraphElement;
  reload: () => Promise<void>;
  done: string;
  ask?: string;
}): HTMLLIElement {
  const remove = async () => {
    if (options.ask && !confirm(options.ask)) return;
    const out = await api("DELETE", options.path);
    if (!out.ok) return showError(options.line(), await sentenceFor(out));
    await options.reload();
    showInfo(options.line(), options.done);
  };
  return h(
    "li",
    { dataset: options.dataset },
    h("span", { class: "what" }, options.what),
    h("button", { type: "button", class: "danger", onclick: remove }, options.button),
  );
}

async function renderConsents(): Promise<void> {
  const read = await api<{ consents: Consent[] }>("GET", "/api/oidc/consents");
  const list = byId("consent-list", HTMLUListElement);
  if (!read.ok) return showError(appsLine(), await sentenceFor(read));
  if (read.body.consents.length === 0) {
    list.replaceChildren(h("li", {}, h("span", { class: "what meta" }, "None yet: an app you allow appears here.")));
    return;
  }
  list.replaceChildren(
    ...read.body.consents.map((consent) =>
      removableRow({
        dataset: { consent: consent.client_id },
        what: [
          h("strong", {}, consent.name),
          " ",
          h("span", { class: "meta" }, `may read: ${consent.scopes.join(", ")} · since ${when(consent.created_at)}`),
        ],
        button: "Take back",
        path: `/api/oidc/consents/${encodeURIComponent(consent.client_id)}`,
        line: appsLine,
        reload: renderConsents,
        done: `${consent.name} can no longer sign you in without asking.`,
      }),
    ),
  );
}

async function renderClients(): Promise<void> {
  const read = await api<{ clients: Client[] }>("GET", "/api/oidc/clients");
  const list = byId("client-list", HTMLUListElement);
  if (!read.ok) return showError(clientsLine(), await sentenceFor(read));
  list.replaceChildren(
    ...read.body.clients.map((client) =>
      removableRow({
        dataset: { client: client.client_id },
        what: [
          h("strong", {}, client.name),
          " ",
          h("span", { class: "badge" }, client.type),
          h("br", {}),
          h("span", { class: "meta" }, "client_id "),
          h("code", {}, client.client_id),
          h("br", {}),
          h("span", { class: "meta" }, `redirects to ${client.redirect_uris.join(", ")}`),
        ],
        button: "Revoke",
        path: `/api/oidc/clients/${encodeURIComponent(client.client_id)}`,
        line: clientsLine,
        reload: renderClients,
        done: `${client.name} is revoked.`,
        ask: `Revoke ${client.name}? It can no longer sign anyone in, and its tokens stop working.`,
      }),
    ),
  );
}

export async function renderApps(): Promise<void> {
  byId("oidc-issuer", HTMLElement).textContent = location.origin;
  await Promise.all([renderConsents(), renderClients()]);
}

export function wireApps(): void {
  byId("client-create", HTMLButtonElement).addEventListener("click", async () => {
    const logo = byId("client-logo", HTMLInputElement).value.trim();
    const body = {
      name: byId("client-name", HTMLInputElement).value.trim(),
      redirect_uris: byId("client-redirects", HTMLTextAreaElement)
        .value.split("\n")
        .map((line) => line.trim())
        .filter(Boolean),
      type: byId("client-type", HTMLSelectElement).value,
      ...(logo ? { logo_uri: logo } : {}),
    };
    const made = await api<{ client: Client; client_secret: string | null }>("POST", "/api/oidc/clients", body);
    if (!made.ok) return showError(clientsLine(), await sentenceFor(made));
    const secret = made.body.client_secret;
    byId("client-secret", HTMLDivElement).hidden = secret === null;
    byId("client-secret-value", HTMLInputElement).value = secret ?? "";
    await renderClients();
    showInfo(clientsLine(), `${made.body.client.name} is registered: client_id ${made.body.client.client_id}.`);
  });
}
