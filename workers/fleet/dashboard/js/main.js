// The dashboard's shell: who is signed in (GET /api/auth/me, answered by the auth worker through the fleet), a link
// to the auth host's sign-in page when nobody is, and a hash router: #/ lists projects, #/p/<project id>/<screen>
// opens one screen of a project.
import { adminLogScreen } from "./admin-log.js";
import { api } from "./api.js";
import { auditScreen } from "./audit.js";
import { billingScreen } from "./billing.js";
import { envelopesScreen } from "./envelopes.js";
import { membersScreen } from "./members.js";
import { overviewScreen, projectsScreen } from "./projects.js";
import { tokensScreen } from "./tokens.js";
import { h, notice } from "./ui.js";
import { webhooksScreen } from "./webhooks.js";

const SCREENS = [
  ["overview", "Overview", overviewScreen],
  ["members", "Members", membersScreen],
  ["tokens", "API tokens", tokensScreen],
  ["webhooks", "Webhooks", webhooksScreen],
  ["envelopes", "Envelopes", envelopesScreen],
  ["audit", "Audit export", auditScreen],
  ["log", "Admin log", adminLogScreen],
  ["billing", "Billing", billingScreen],
];

const main = document.getElementById("main");
const account = document.getElementById("account");
const state = { authOrigin: null, adminEvents: [], me: null, billingReturn: null };

/** The auth host's sign-in page, coming back here afterwards (the fleet tells us where the auth host is). */
function signInUrl(add) {
  const q = new URLSearchParams({ return_to: location.href });
  if (add) q.set("add", "1");
  return state.authOrigin ? `${state.authOrigin}/signin?${q}` : null;
}

function signedOut(result) {
  account.replaceChildren();
  const url = signInUrl(false);
  const box = notice();
  if (result.reason !== "not_authenticated" && result.reason !== "unauthenticated") box.error(result);
  main.replaceChildren(
    h("h2", {}, "Sign in"),
    h("p", {}, "The dashboard uses your session from the sign-in host (the oc_session cookie)."),
    url
      ? h("p", {}, h("a", { class: "button", id: "signin-link", href: url }, "Sign in"))
      : h("p", {}, "The sign-in host is unknown: open its /signin page, then reload this page."),
    box,
  );
}

function accountLabel(me) {
  const id = me.display_identity ?? { kind: "did", value: me.did_oc };
  return `${me.display_name ? `${me.display_name} · ` : ""}${id.value} (${id.kind})`;
}

function renderAccount() {
  const out = notice();
  const signOut = async () => {
    const result = await api("POST", "/api/auth/logout?scope=current");
    if (out.check(result)) await boot();
  };
  account.replaceChildren(
    h("span", { id: "signed-in-as" }, `Signed in as ${accountLabel(state.me)}`),
    " ",
    h("a", { href: signInUrl(false) ?? "#/" }, "Accounts"),
    " ",
    h("button", { type: "button", id: "signout", onclick: signOut }, "Sign out"),
    out,
  );
}

async function projectScreen(projectId, screenId) {
  const screen = SCREENS.find(([id]) => id === screenId) ?? SCREENS[0];
  const read = await api("GET", `/api/projects/${encodeURIComponent(projectId)}`);
  if (!read.ok) {
    const box = notice();
    box.error(read);
    return main.replaceChildren(h("h2", {}, "Project"), box, h("p", {}, h("a", { href: "#/" }, "All projects")));
  }
  const { project, role } = read.data;
  const nav = h(
    "nav",
    { "aria-label": "Project screens", class: "tabs" },
    h(
      "ul",
      {},
      SCREENS.map(([id, label]) =>
        h(
          "li",
          {},
          h("a", { href: `#/p/${project.id}/${id}`, "aria-current": id === screen[0] ? "page" : undefined }, label),
        ),
      ),
    ),
  );
  const container = h("div", { id: `screen-${screen[0]}` });
  main.replaceChildren(
    h("p", { class: "crumbs" }, h("a", { href: "#/" }, "Projects"), " / ", project.id),
    h(
      "h2",
      {},
      project.name,
      " ",
      h("span", { class: "badge" }, `your role: ${role}`),
      project.archived ? h("span", { class: "badge badge-revoked" }, "archived (read-only)") : null,
    ),
    nav,
    container,
  );
  const ctx = {
    project,
    role,
    me: state.me,
    container,
    reload: route,
    billingReturn: state.billingReturn,
    adminEvents: state.adminEvents,
  };
  state.billingReturn = null;
  await screen[2](ctx);
}

async function route() {
  const [, kind, projectId, screenId] = location.hash.split("/");
  if (kind === "p" && projectId) await projectScreen(projectId, screenId);
  else await projectsScreen({ me: state.me, container: main, reload: route });
}

/** The payment processors send the buyer back to /dashboard/?project=…&billing=paid|cancelled|portal. */
function takeBillingReturn() {
  const params = new URLSearchParams(location.search);
  const project = params.get("project");
  if (!project || !/^proj_[0-9a-f]+$/.test(project)) return;
  history.replaceState(null, "", `${location.pathname}#/p/${project}/billing`);
  state.billingReturn = params.get("billing");
}

async function boot() {
  takeBillingReturn();
  const config = await api("GET", "/dashboard/config.json");
  state.authOrigin = config.ok ? config.data.auth_origin : null;
  state.adminEvents = config.ok ? (config.data.admin_events ?? []) : [];
  const me = await api("GET", "/api/auth/me");
  if (!me.ok) return signedOut(me);
  state.me = me.data.account;
  renderAccount();
  await route();
}

window.addEventListener("hashchange", () => {
  if (state.me) route();
});
boot();
