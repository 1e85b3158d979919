// Projects: the list and the create form (#/), and one project's overview: rename (admin), transfer ownership and
// archive (owner). Routes: GET/POST /api/projects, GET/PATCH/DELETE /api/projects/{id}, POST …/{id}/transfer.
import { api, query } from "./api.js";
import { badge, field, h, moreButton, notice, section, table, time } from "./ui.js";

export async function projectsScreen({ me, container }) {
  const out = notice();
  const name = field("Project name", { name: "name", required: true, maxlength: 100, id: "project-name" });
  const create = async (event) => {
    event.preventDefault();
    const result = await api("POST", "/api/projects", { name: name.input.value });
    if (!out.check(result)) return;
    location.hash = `#/p/${result.data.project.id}/overview`;
  };
  const list = h("div", { id: "project-list" });
  container.replaceChildren(
    h("h2", {}, "Projects"),
    me.primary_btc
      ? null
      : h("p", { class: "hint" }, "This account has no Bitcoin address: projects are created by Bitcoin accounts."),
    section(
      "Create a project",
      h("form", { onsubmit: create }, name, h("button", { type: "submit", id: "project-create" }, "Create"), out),
    ),
    section("Your projects", list),
  );
  await loadProjects(list);
}

async function loadProjects(list, cursor) {
  const result = await api("GET", `/api/projects${query({ cursor })}`);
  const out = notice();
  if (!out.check(result)) return list.append(out);
  const rows = result.data.projects;
  list.append(
    table(
      "Projects you are a member of",
      [
        { label: "Name", cell: (p) => h("a", { href: `#/p/${p.id}/overview`, class: "project-link" }, p.name) },
        { label: "Id", cell: (p) => h("code", {}, p.id) },
        { label: "Owner", cell: (p) => h("code", {}, p.owner_address) },
        { label: "State", cell: (p) => badge(p.archived ? "archived" : "active") },
        { label: "Created", cell: (p) => time(p.created_at) },
      ],
      rows,
      "No projects yet: create one above.",
    ),
  );
  const next = result.data.next_cursor;
  if (next) {
    list.append(moreButton("More", () => loadProjects(list, next)));
  }
}

export async function overviewScreen({ project, role, container, reload }) {
  const path = `/api/projects/${project.id}`;
  const renameOut = notice();
  const name = field("New name", { name: "name", value: project.name, required: true, maxlength: 100 });
  const rename = async (event) => {
    event.preventDefault();
    if (renameOut.check(await api("PATCH", path, { name: name.input.value }), "Renamed.")) await reload();
  };
  const transferOut = notice();
  const address = field("New owner's Bitcoin address", { name: "address", required: true, autocomplete: "off" });
  const transfer = async (event) => {
    event.preventDefault();
    if (!confirm(`Transfer ownership to ${address.input.value}? You will become an admin.`)) return;
    if (transferOut.check(await api("POST", `${path}/transfer`, { address: address.input.value }))) await reload();
  };
  const archiveOut = notice();
  const archive = async () => {
    if (!confirm(`Archive ${project.name}? It stays readable but can no longer change.`)) return;
    if (archiveOut.check(await api("DELETE", path))) await reload();
  };
  container.replaceChildren(
    section(
      "Details",
      h(
        "dl",
        { class: "details" },
        [
          ["Id", h("code", {}, project.id)],
          ["Owner", h("code", {}, project.owner_address)],
          ["Your role", role],
          ["State", badge(project.archived ? "archived" : "active")],
          ["Created", time(project.created_at)],
          ["Updated", time(project.updated_at)],
        ].map(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]),
      ),
    ),
    section(
      "Rename",
      h("form", { onsubmit: rename }, name, h("button", { type: "submit", id: "rename" }, "Rename"), renameOut),
    ),
    section(
      "Transfer ownership",
      h("p", { class: "hint" }, "Owners only. The new owner may be any Bitcoin address; you stay on as an admin."),
      h("form", { onsubmit: transfer }, address, h("button", { type: "submit" }, "Transfer"), transferOut),
    ),
    section(
      "Archive",
      h("p", { class: "hint" }, "Owners only. An archived project keeps its envelopes and log, read-only."),
      h(
        "button",
        { type: "button", class: "danger", id: "archive", onclick: archive, disabled: project.archived },
        "Archive project",
      ),
      archiveOut,
    ),
  );
}
