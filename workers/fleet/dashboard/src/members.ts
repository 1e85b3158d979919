// Members and roles: invite an address with a role, change a role, remove a member. Rule 9's refusals
// (already_a_member, owner_role_requires_owner, last_owner_cannot_demote/remove) are shown with their reason.
// Routes: GET/POST /api/projects/{id}/members, PATCH/DELETE /api/members/{id}.
import { api, query } from "./api";
import { field, select, table, timeColumn, unlessArchived } from "./forms";
import { type Notice, notice } from "./notice";
import type { Page, ScreenContext } from "./types";
import { h, section, showPage } from "./ui";

const ROLES = ["viewer", "member", "admin", "owner"];

interface Member {
  id: string;
  address: string;
  role: string;
  created_at: string;
}

export async function membersScreen(ctx: ScreenContext) {
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
  const list = h("div", { id: "member-list" });
  const rowOut = notice("member-status");
  const invite = async (event: Event) => {
    event.preventDefault();
    const result = await api<{ member: Member }>("POST", `/api/projects/${project.id}/members`, {
      address: address.input.value.trim(),
      role: role.input.value,
    });
    const invited = () => {
      address.input.value = "";
      return loadMembers(ctx, list, rowOut);
    };
    await inviteOut.settle(result, invited, (r) => `Invited ${r.data.member.address} as ${r.data.member.role}.`);
  };
  container.replaceChildren(
    section(
      "Invite a member",
      unlessArchived(
        project.archived,
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
    ),
    section("Members", rowOut, list),
  );
  await loadMembers(ctx, list, rowOut);
}

async function loadMembers(ctx: ScreenContext, list: HTMLElement, out: Notice, cursor?: string, append = false) {
  const { project } = ctx;
  const result = await api<{ members: Member[] } & Page>(
    "GET",
    `/api/projects/${project.id}/members${query({ cursor })}`,
  );
  if (!result.ok) return out.error(result);
  const refresh = () => loadMembers(ctx, list, out);
  const roleCell = (m: Member) => {
    if (project.archived) return m.role;
    const choice = select(`Role of ${m.address}`, "role", ROLES, m.role);
    choice.classList.add("inline");
    choice.input.dataset.member = m.address;
    const save = async () => {
      const r = await api("PATCH", `/api/members/${m.id}`, { role: choice.input.value });
      if (!(await out.settle(r, refresh, `${m.address} is now ${choice.input.value}.`))) choice.input.value = m.role;
    };
    return h("span", {}, choice, h("button", { type: "button", onclick: save, dataset: { save: m.address } }, "Save"));
  };
  const removeButton = (m: Member) => {
    if (project.archived) return "—";
    const remove = async () => {
      if (!confirm(`Remove ${m.address} from ${project.name}?`)) return;
      await out.settle(await api("DELETE", `/api/members/${m.id}`), refresh, `Removed ${m.address}.`);
    };
    return h("button", { type: "button", class: "danger", onclick: remove, dataset: { remove: m.address } }, "Remove");
  };
  const t = table<Member>(
    "Members and their roles",
    [
      { label: "Address", cell: (m) => h("code", {}, m.address) },
      { label: "Role", cell: roleCell },
      timeColumn("Since", (m) => m.created_at),
      { label: "Actions", cell: removeButton },
    ],
    result.data.members,
  );
  showPage(list, t, append, result.data.next_cursor, (next) => loadMembers(ctx, list, out, next, true));
}
