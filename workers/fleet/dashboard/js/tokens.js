// API tokens: create one (the `ock_…` secret is shown once, in this page's memory only: a reload loses it),
// revoke, restore (409 expired_cannot_restore past its expiry) and delete. Routes: GET/POST /api/tokens,
// PATCH/DELETE /api/tokens/{id}.
import { api, query } from "./api.js";
import { badge, field, h, moreButton, notice, secretOnce, section, table, time } from "./ui.js";

function tokenState(t) {
  if (t.revoked) return "revoked";
  return Date.parse(t.expires_at) <= Date.now() ? "expired" : "active";
}

export async function tokensScreen(ctx) {
  const { project, container } = ctx;
  const createOut = notice();
  const shown = h("div", { id: "token-secret" });
  const name = field("Token name", { name: "name", required: true, maxlength: 100, id: "token-name" });
  const expires = field("Expires on (optional; default 90 days)", {
    name: "expires",
    type: "date",
    id: "token-expires",
  });
  const create = async (event) => {
    event.preventDefault();
    const body = { project_id: project.id, name: name.input.value };
    if (expires.input.value) body.expires_at = `${expires.input.value}T00:00:00Z`;
    const result = await api("POST", "/api/tokens", body);
    const created = (r) => {
      name.input.value = "";
      shown.replaceChildren(secretOnce(`Secret of ${r.data.token.name}`, r.data.secret));
      return loadTokens(ctx, list, rowOut);
    };
    await createOut.settle(result, () => created(result), `Created ${body.name}.`);
  };
  const list = h("div", { id: "token-list" });
  const rowOut = notice();
  container.replaceChildren(
    section(
      "Create an API token",
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
    section("Tokens", rowOut, list),
  );
  await loadTokens(ctx, list, rowOut);
}

async function loadTokens(ctx, list, out, cursor, append = false) {
  const result = await api("GET", `/api/tokens${query({ project_id: ctx.project.id, cursor })}`);
  if (!result.ok) return out.error(result);
  const refresh = () => loadTokens(ctx, list, out);
  const act = (t, label, method, body, done) =>
    h(
      "button",
      {
        type: "button",
        class: method === "DELETE" ? "danger" : undefined,
        dataset: { action: label.toLowerCase(), token: t.name },
        onclick: async () => {
          if (method === "DELETE" && !confirm(`Delete the token ${t.name}? Programs using it stop working.`)) return;
          await out.settle(await api(method, `/api/tokens/${t.id}`, body), refresh, done);
        },
      },
      label,
    );
  const actions = (t) =>
    h(
      "span",
      { class: "actions" },
      t.revoked
        ? act(t, "Restore", "PATCH", { revoked: false }, `Restored ${t.name}.`)
        : act(t, "Revoke", "PATCH", { revoked: true }, `Revoked ${t.name}.`),
      " ",
      act(t, "Delete", "DELETE", undefined, `Deleted ${t.name}.`),
    );
  const t = table(
    "API tokens (secrets are never shown again)",
    [
      { label: "Name", cell: (t) => t.name },
      { label: "Token", cell: (t) => h("code", {}, `ock_…${t.hint}`) },
      { label: "State", cell: (t) => badge(tokenState(t)) },
      { label: "Expires", cell: (t) => time(t.expires_at) },
      { label: "Last used", cell: (t) => time(t.last_used_at) },
      { label: "Created", cell: (t) => time(t.created_at) },
      { label: "Actions", cell: actions },
    ],
    result.data.tokens,
  );
  if (append) list.append(t);
  else list.replaceChildren(t);
  const next = result.data.next_cursor;
  if (next) {
    list.append(moreButton("More", () => loadTokens(ctx, list, out, next, true)));
  }
}
