// API tokens: create one (the `ock_…` secret is shown once, in this page's memory only: a reload loses it),
// revoke, restore (a new secret, shown once the same way; 409 expired_cannot_restore past its expiry) and delete. Routes: GET/POST /api/tokens,
// PATCH/DELETE /api/tokens/{id}.
import { api, query } from "./api";
import { field, secretOnce, table, timeColumn, unlessArchived } from "./forms";
import { type Notice, notice } from "./notice";
import type { Page, ScreenContext } from "./types";
import { badge, h, section, showPage } from "./ui";

interface Token {
  id: string;
  name: string;
  hint: string;
  revoked: boolean;
  expires_at: string;
  last_used_at: string | null;
  created_at: string;
}

function tokenState(t: Token) {
  if (t.revoked) return "revoked";
  return Date.parse(t.expires_at) <= Date.now() ? "expired" : "active";
}

export async function tokensScreen(ctx: ScreenContext) {
  const { project, container } = ctx;
  const createOut = notice();
  const shown = h("div", { id: "token-secret" });
  const name = field("Token name", { name: "name", required: true, maxlength: "100", id: "token-name" });
  const expires = field("Expires on (optional; default 90 days)", {
    name: "expires",
    type: "date",
    id: "token-expires",
  });
  const list = h("div", { id: "token-list" });
  const rowOut = notice();
  const create = async (event: Event) => {
    event.preventDefault();
    const body = {
      project_id: project.id,
      name: name.input.value,
      ...(expires.input.value && { expires_at: `${expires.input.value}T00:00:00Z` }),
    };
    const result = await api<{ token: Token; secret: string }>("POST", "/api/tokens", body);
    const created = () => {
      name.input.value = "";
      if (result.ok) shown.replaceChildren(secretOnce(`Secret of ${result.data.token.name}`, result.data.secret));
      return loadTokens(ctx, list, rowOut, shown);
    };
    await createOut.settle(result, created, `Created ${body.name}.`);
  };
  container.replaceChildren(
    section(
      "Create an API token",
      unlessArchived(
        project.archived,
        h("p", { class: "hint" }, "A token acts as the project's owner: send it as Authorization: Bearer <token>."),
        h(
          "form",
          { onsubmit: create },
          name,
          expires,
          h("button", { type: "submit", id: "token-create" }, "Create"),
          createOut,
        ),
        shown,
      ),
    ),
    section("Tokens", rowOut, list),
  );
  await loadTokens(ctx, list, rowOut, shown);
}

async function loadTokens(
  ctx: ScreenContext,
  list: HTMLElement,
  out: Notice,
  shown: HTMLElement,
  cursor?: string,
  append = false,
) {
  const result = await api<{ tokens: Token[] } & Page>(
    "GET",
    `/api/tokens${query({ project_id: ctx.project.id, cursor })}`,
  );
  if (!result.ok) return out.error(result);
  const refresh = () => loadTokens(ctx, list, out, shown);
  const act = (t: Token, label: string, method: string, body: unknown, done: string) =>
    h(
      "button",
      {
        type: "button",
        class: method === "DELETE" ? "danger" : undefined,
        dataset: { action: label.toLowerCase(), token: t.name },
        onclick: async () => {
          if (method === "DELETE" && !confirm(`Delete the token ${t.name}? Programs using it stop working.`)) return;
          const result = await api<{ secret?: string }>(method, `/api/tokens/${t.id}`, body);
          // A restore answers a new secret (the old one stays dead): shown once, like a new token's.
          if (result.ok && result.data.secret) {
            shown.replaceChildren(secretOnce(`New secret of ${t.name}`, result.data.secret));
          }
          await out.settle(result, refresh, done);
        },
      },
      label,
    );
  const actions = (t: Token) =>
    ctx.project.archived
      ? "—"
      : h(
          "span",
          { class: "actions" },
          t.revoked
            ? act(t, "Restore", "PATCH", { revoked: false }, `Restored ${t.name} with a new secret.`)
            : act(t, "Revoke", "PATCH", { revoked: true }, `Revoked ${t.name}.`),
          " ",
          act(t, "Delete", "DELETE", undefined, `Deleted ${t.name}.`),
        );
  const t = table<Token>(
    "API tokens (secrets are never shown again)",
    [
      { label: "Name", cell: (t) => t.name },
      { label: "Token", cell: (t) => h("code", {}, `ock_…${t.hint}`) },
      { label: "State", cell: (t) => badge(tokenState(t)) },
      timeColumn("Expires", (t) => t.expires_at),
      timeColumn("Last used", (t) => t.last_used_at),
      timeColumn("Created", (t) => t.created_at),
      { label: "Actions", cell: actions },
    ],
    result.data.tokens,
  );
  showPage(list, t, append, result.data.next_cursor, (next) => loadTokens(ctx, list, out, shown, next, true));
}
