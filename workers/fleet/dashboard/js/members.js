// Members and roles: invite an address with a role, change a role, remove a member. Rule 9's refusals
// (already_a_member, owner_role_requires_owner, last_owner_cannot_demote/remove) are shown with their reason.
// Routes: GET/POST /api/projects/{id}/members, PATCH/DELETE /api/members/{id}.
import { api, query } from "./api.js";
import { field, h, moreButton, notice, section, select, table, time } from "./ui.js";

const ROLES = ["viewer", "member", "admin", "owner"];

export async function membersScreen(ctx) {
  const { project, container } = ctx;
  const inviteOut = notice();
  const address = field("Bitcoin address", {
    name: "address",
    required: true,
    autocomplete: "off",
    id: "invite-address",
  });
  const role = select("Role", "role", ROLES, "member");
  role.input.id = "invite-role";
  const invite = async (event) => {
    event.preventDefault();
    const result = await api("POST", `/api/projects/${project.id}/members`, {
      address: address.input.value.trim(),
      role: role.input.value,
    });
    await inviteOut.settle(
      result,
      () => {
        address.input.value = "";
        return loadMembers(ctx, list, rowOut);
      },
      (r) => `Invited ${r.data.member.address} as ${r.data.member.role}.`,
    );
  };
  const list = h("div", { id: "member-list" });
  const rowOut = notice();
  rowOut.id = "member-status";
  container.replaceChildren(
    section(
      "Invite a member",
      h("p", { class: "hint" }, "Admins invite viewers, members and admins; only an owner adds another owner."),
      h(
        "form",
        { onsubmit: invite },
        address,
        role,
        h("button", { type: "submit", id: "invite" }, "Invite"),
        inviteOut,
      ),
    ),
    section("Members", rowOut, list),
  );
  await loadMembers(ctx, list, rowOut);
}

async function loadMembers(ctx, list, out, cursor, append = false) {
  const { project } = ctx;
  const result = await api("GET", `/api/projects/${project.id}/members${query({ cursor })}`);
  if (!result.ok) return out.error(result);
  const rows = result.data.members;
  const refresh = () => loadMembers(ctx, list, out);
  const roleCell = (m) => {
    const choice = select(`Role of ${m.address}`, "role", ROLES, m.role);
    choice.classList.add("inline");
    choice.input.dataset.member = m.address;
    const save = async () => {
      const r = await api("PATCH", `/api/members/${m.id}`, { role: choice.input.value });
      if (!(await out.settle(r, refresh, `${m.address} is now ${choice.input.value}.`))) choice.input.value = m.role;
    };
    return h("span", {}, choice, h("button", { type: "button", onclick: save, dataset: { save: m.address } }, "Save"));
  };
  const removeButton = (m) => {
    const remove = async () => {
      if (!confirm(`Remove ${m.address} from ${project.name}?`)) return;
      await out.settle(await api("DELETE", `/api/members/${m.id}`), refresh, `Removed ${m.address}.`);
    };
    return h("button", { type: "button", class: "danger", onclick: remove, dataset: { remove: m.address } }, "Remove");
  };
  const t = table(
    "Members and their roles",
    [
      { label: "Address", cell: (m) => h("code", {}, m.address) },
      { label: "Role", cell: roleCell },
      { label: "Since", cell: (m) => time(m.created_at) },
      { label: "Actions", cell: removeButton },
    ],
    rows,
  );
  if (append) list.append(t);
  else list.replaceChildren(t);
  const next = result.data.next_cursor;
  if (next) {
    list.append(moreButton("More", () => loadMembers(ctx, list, out, next, true)));
  }
}
