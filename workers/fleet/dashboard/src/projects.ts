// Projects: the list and the create form (#/), and one project's overview: its activity and webhook health first
// (activity.ts), then rename (admin), whether its log is public, transfer ownership and archive (owner). Routes:
// GET/POST /api/projects, GET/PATCH/DELETE /api/projects/{id}, POST …/{id}/transfer, PUT …/{id}/log-visibility.
import { activitySections } from "./activity";
import { api, query } from "./api";
import { field, select, table, timeColumn, unlessArchived } from "./forms";
import { notice } from "./notice";
import type { Account, Page, Project, ScreenContext } from "./types";
import { badge, h, moreButton, section, time } from "./ui";

const stateBadge = (p: Project) => badge(p.archived ? "archived" : "active");

export async function projectsScreen({
  me,
  container,
  places,
}: {
  me: Account;
  container: HTMLElement;
  places: readonly string[];
}) {
  const out = notice();
  const name = field("Project name", { name: "name", required: true, maxlength: "100", id: "project-name" });
  // A choice only where the registry has databases in more than one place (data residency, docs/scale.md).
  const place = places.length > 1 ? select("Location", "location", places, places[0] ?? "") : undefined;
  const create = async (event: Event) => {
    event.preventDefault();
    const body = { name: name.input.value, ...(place && { location: place.input.value }) };
    const result = await api<{ project: Project }>("POST", "/api/projects", body);
    if (out.check(result) && result.ok) location.hash = `#/p/${result.data.project.id}/overview`;
  };
  const list = h("div", { id: "project-list" });
  container.replaceChildren(
    h("h2", {}, "Projects"),
    ...(me.primary_btc
      ? []
      : [h("p", { class: "hint" }, "This account has no Bitcoin address: projects are created by Bitcoin accounts.")]),
    section(
      "Create a project",
      h(
        "form",
        { onsubmit: create },
        name,
        place ?? [],
        h("button", { type: "submit", id: "project-create" }, "Create"),
        out,
      ),
    ),
    section("Your projects", list),
  );
  await loadProjects(list);
}

async function loadProjects(list: HTMLElement, cursor?: string): Promise<void> {
  const result = await api<{ projects: Project[] } & Page>("GET", `/api/projects${query({ cursor })}`);
  const out = notice();
  if (!result.ok) {
    out.error(result);
    list.append(out);
    return;
  }
  list.append(
    table<Project>(
      "Projects you are a member of",
      [
        { label: "Name", cell: (p) => h("a", { href: `#/p/${p.id}/overview`, class: "project-link" }, p.name) },
        { label: "Id", cell: (p) => h("code", {}, p.id) },
        { label: "Owner", cell: (p) => h("code", {}, p.owner_address) },
        { label: "Location", cell: (p) => p.location },
        { label: "State", cell: stateBadge },
        timeColumn("Created", (p) => p.created_at),
      ],
      result.data.projects,
      "No projects yet: create one above.",
    ),
  );
  const next = result.data.next_cursor;
  if (next) list.append(moreButton("More", () => loadProjects(list, next)));
}

export async function overviewScreen(ctx: ScreenContext) {
  const { project, role, container, reload } = ctx;
  const path = `/api/projects/${project.id}`;
  const renameOut = notice();
  const name = field("New name", { name: "name", value: project.name, required: true, maxlength: "100" });
  const rename = async (event: Event) => {
    event.preventDefault();
    if (renameOut.check(await api("PATCH", path, { name: name.input.value }), "Renamed.")) await reload();
  };
  const transferOut = notice();
  const address = field("New owner's Bitcoin address", { name: "address", required: true, autocomplete: "off" });
  const transfer = async (event: Event) => {
    event.preventDefault();
    if (!confirm(`Transfer ownership to ${address.input.value}? You will become an admin.`)) return;
    if (transferOut.check(await api("POST", `${path}/transfer`, { address: address.input.value }))) await reload();
  };
  const archiveOut = notice();
  const archive = async () => {
    if (!confirm(`Archive ${project.name}? It stays readable but can no longer change.`)) return;
    if (archiveOut.check(await api("DELETE", path))) await reload();
  };
  const details: [string, string | Node][] = [
    ["Id", h("code", {}, project.id)],
    ["Owner", h("code", {}, project.owner_address)],
    ["Your role", role],
    ["Location", project.location],
    ["State", stateBadge(project)],
    ["Created", time(project.created_at)],
    ["Updated", time(project.updated_at)],
  ];
  const { archived } = project;
  const charts = await activitySections(ctx);
  const publicLog = publicLogSection(ctx);
  container.replaceChildren(
    charts,
    section(
      "Details",
      h(
        "dl",
        { class: "details" },
        details.map(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]),
      ),
    ),
    section(
      "Rename",
      unlessArchived(
        archived,
        h("form", { onsubmit: rename }, name, h("button", { type: "submit", id: "rename" }, "Rename"), renameOut),
      ),
    ),
    publicLog,
    section(
      "Transfer ownership",
      unlessArchived(
        archived,
        h("p", { class: "hint" }, "Owners only. The new owner may be any Bitcoin address; you stay on as an admin."),
        h("form", { onsubmit: transfer }, address, h("button", { type: "submit" }, "Transfer"), transferOut),
      ),
    ),
    section(
      "Archive",
      unlessArchived(
        archived,
        h("p", { class: "hint" }, "Owners only. An archived project keeps its envelopes and log, read-only."),
        h("button", { type: "button", class: "danger", id: "archive", onclick: archive }, "Archive project"),
        archiveOut,
      ),
    ),
  );
}

/**
 * Whether anyone may read the project's log (owners only; an archived project's log may still be made private). The
 * box shows the server's state: it is set back when the change is refused.
 */
function publicLogSection({ project, role, reload }: ScreenContext): HTMLElement {
  const out = notice();
  const owner = role === "owner";
  const box = h("input", { type: "checkbox", id: "log-public", checked: project.log_public, disabled: !owner });
  const change = async () => {
    const wanted = box.checked;
    const warning =
      "Make this project's log public? Anyone can read it and its envelopes, and copies already read or cached " +
      "stay out there if you make it private again.";
    if (wanted && !confirm(warning)) {
      box.checked = false;
      return;
    }
    const result = await api("PUT", `/api/projects/${project.id}/log-visibility`, { public: wanted });
    if (out.check(result)) await reload();
    else box.checked = !wanted;
  };
  box.addEventListener("change", change);
  const prefix = `${location.origin}/api/log/${project.id}/`;
  return section(
    "Public log",
    project.archived && !project.log_public
      ? unlessArchived(true)
      : [
          h(
            "p",
            { class: "hint" },
            owner ? "Owners only. " : "Only an owner can change this. ",
            "A public log is listed at ",
            h("code", {}, "/api/logs/public"),
            " and read without signing in; copies of its full tiles may be kept anywhere for a year.",
          ),
          h("label", {}, box, " Anyone can read this project's log and its envelopes"),
          project.log_public ? h("p", { class: "hint" }, "Tiles: ", h("code", {}, prefix)) : [],
          out,
        ],
  );
}
