// The dashboard's shell: who is signed in (GET /api/auth/me, answered by the auth worker through the fleet), a link
// to the auth host's sign-in page when nobody is, and a hash router: #/ lists projects, #/p/<project id>/<view>
// opens one view of a project.
import { adminLogScreen } from "./admin-log";
import { type ApiResult, api, loadMessages } from "./api";
import { auditScreen } from "./audit";
import { billingScreen } from "./billing";
import { envelopesScreen } from "./envelopes";
import { membersScreen } from "./members";
import { notice } from "./notice";
import { pledgesScreen } from "./pledges";
import { overviewScreen, projectsScreen } from "./projects";
import { tokensScreen } from "./tokens";
import type { Account, Project, ScreenContext } from "./types";
import { h } from "./ui";
import { VIEWS, type ViewId } from "./views";
import { webhooksScreen } from "./webhooks";

/** Each view's screen: a Record, so the compiler refuses a view without one. */
const SCREENS: Record<ViewId, (ctx: ScreenContext) => Promise<void>> = {
  overview: overviewScreen,
  members: membersScreen,
  tokens: tokensScreen,
  webhooks: webhooksScreen,
  envelopes: envelopesScreen,
  pledges: pledgesScreen,
  audit: auditScreen,
  log: adminLogScreen,
  billing: billingScreen,
};

const byId = (id: string) => document.getElementById(id) ?? document.body;
const main = byId("main");
const account = byId("account");
const state = {
  authOrigin: null as string | null,
  adminEvents: [] as readonly string[],
  pledgeStates: [] as readonly string[],
  projectPlaces: [] as readonly string[],
  me: null as Account | null,
  billingReturn: null as string | null,
};

/** The auth host's sign-in page, coming back here afterwards (the fleet tells us where the auth host is). */
function signInUrl(): string | null {
  const q = new URLSearchParams({ return_to: location.href });
  return state.authOrigin ? `${state.authOrigin}/signin?${q}` : null;
}

function signedOut(result: Extract<ApiResult<unknown>, { ok: false }>) {
  account.replaceChildren();
  const url = signInUrl();
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

function accountLabel(me: Account) {
  const id = me.display_identity ?? { kind: "did", value: me.did_oc };
  return `${me.display_name ? `${me.display_name} · ` : ""}${id.value} (${id.kind})`;
}

function renderAccount(me: Account) {
  const out = notice();
  const signOut = async () => {
    const result = await api("POST", "/api/auth/logout?scope=current");
    if (out.check(result)) await boot();
  };
  account.replaceChildren(
    h("span", { id: "signed-in-as" }, `Signed in as ${accountLabel(me)}`),
    " ",
    h("a", { href: signInUrl() ?? "#/" }, "Accounts"),
    " ",
    h("button", { type: "button", id: "signout", onclick: signOut }, "Sign out"),
    out,
  );
}

async function projectScreen(me: Account, projectId: string, viewId: string | undefined) {
  const view = VIEWS.find(({ id }) => id === viewId) ?? VIEWS[0];
  const read = await api<{ project: Project; role: string }>("GET", `/api/projects/${encodeURIComponent(projectId)}`);
  if (!read.ok) {
    const box = notice();
    box.error(read);
    return main.replaceChildren(h("h2", {}, "Project"), box, h("p", {}, h("a", { href: "#/" }, "All projects")));
  }
  const { project, role } = read.data;
  const tab = ({ id, label }: (typeof VIEWS)[number]) =>
    h(
      "li",
      {},
      h("a", { href: `#/p/${project.id}/${id}`, "aria-current": id === view.id ? "page" : undefined }, label),
    );
  const container = h("div", { id: `screen-${view.id}` });
  main.replaceChildren(
    h("p", { class: "crumbs" }, h("a", { href: "#/" }, "Projects"), " / ", project.id),
    h(
      "h2",
      {},
      project.name,
      " ",
      h("span", { class: "badge" }, `your role: ${role}`),
      project.archived ? [" ", h("span", { class: "badge badge-revoked" }, "archived (read-only)")] : [],
    ),
    h("nav", { "aria-label": "Project views", class: "tabs" }, h("ul", {}, VIEWS.map(tab))),
    container,
  );
  const ctx = {
    project,
    role,
    me,
    container,
    reload: route,
    billingReturn: state.billingReturn,
    adminEvents: state.adminEvents,
    pledgeStates: state.pledgeStates,
  };
  state.billingReturn = null;
  await SCREENS[view.id](ctx);
}

async function route(): Promise<void> {
  if (!state.me) return;
  const [, kind, projectId, viewId] = location.hash.split("/");
  if (kind === "p" && projectId) await projectScreen(state.me, projectId, viewId);
  else await projectsScreen({ me: state.me, container: main, places: state.projectPlaces });
}

/** The payment processors send the buyer back to /dashboard/?project=…&billing=paid|cancelled|portal. */
function takeBillingReturn() {
  const params = new URLSearchParams(location.search);
  const project = params.get("project");
  if (!project || !/^proj_[0-9a-f]+$/.test(project)) return;
  history.replaceState(null, "", `${location.pathname}#/p/${project}/billing`);
  state.billingReturn = params.get("billing");
}

async function boot(): Promise<void> {
  takeBillingReturn();
  const [config, me] = await Promise.all([
    api<{ auth_origin: string; admin_events?: string[]; pledge_states?: string[]; project_places?: string[] }>(
      "GET",
      "/dashboard/config.json",
    ),
    api<{ account: Account }>("GET", "/api/auth/me"),
    loadMessages(),
  ]);
  state.authOrigin = config.ok ? config.data.auth_origin : null;
  state.adminEvents = config.ok ? (config.data.admin_events ?? []) : [];
  state.pledgeStates = config.ok ? (config.data.pledge_states ?? []) : [];
  state.projectPlaces = config.ok ? (config.data.project_places ?? []) : [];
  if (!me.ok) {
    state.me = null;
    return signedOut(me);
  }
  state.me = me.data.account;
  renderAccount(me.data.account);
  await route();
}

window.addEventListener("hashchange", () => void route());
void boot();
