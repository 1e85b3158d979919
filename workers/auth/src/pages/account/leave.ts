// "Delete my account" (issue 46, item 3): what deleting takes (the projects owned alone go with it, each with a link to
// its last export; the projects shared with others hold it back until transferred), the download offered first, a
// confirmation, then the proof the API asks for (a step-up where the account has a key, else sudo) through
// `sensitive`. While a deletion is scheduled, a banner at the top says when and offers to keep the account.
import { h } from "../../../../../shared/browser/dom";
import { api } from "../shared/api";
import { byId } from "../signin/dom";
import { sentenceFor, showError, showInfo } from "../signin/messages";
import { downloadExport } from "./export";
import { sensitive } from "./reauth";
import { when } from "./state";

interface ProjectRef {
  project_id: string;
  project_name: string;
  other_members?: number;
  audit_export?: string;
}

interface DeletionState {
  deletion: { requested_at: string; due_at: string } | null;
  grace_days: number;
  shared_projects: ProjectRef[];
  sole_projects: ProjectRef[];
}

const line = () => byId("leave-msg", HTMLParagraphElement);

function projectRow(p: ProjectRef): HTMLLIElement {
  const what = h(
    "span",
    { class: "what" },
    h("strong", {}, p.project_name),
    " ",
    h("span", { class: "meta" }, p.project_id),
  );
  const link = p.audit_export
    ? h("a", { class: "button secondary", href: p.audit_export, download: "" }, "Download its last export")
    : h("span", { class: "meta" }, `${p.other_members ?? 0} other member(s): transfer it first`);
  return h("li", { dataset: { project: p.project_id } }, what, link);
}

/** Reads the deletion state and shows it: the banner and the undo, or the projects and the button. */
export async function renderLeave(): Promise<void> {
  const read = await api<DeletionState>("GET", "/api/auth/account/deletion");
  if (!read.ok) return;
  const { deletion, grace_days, shared_projects, sole_projects } = read.body;
  const banner = byId("leave-banner", HTMLElement);
  banner.hidden = deletion === null;
  if (deletion) {
    byId("leave-when", HTMLParagraphElement).textContent =
      `This account is scheduled for deletion on ${when(deletion.due_at)}. Until then you can keep it.`;
  }
  byId("leave-ask", HTMLButtonElement).hidden = deletion !== null;
  byId("leave-confirm", HTMLDivElement).hidden = true;
  byId("leave-grace", HTMLSpanElement).textContent = String(grace_days);
  const list = byId("leave-projects", HTMLUListElement);
  list.replaceChildren(...shared_projects.map(projectRow), ...sole_projects.map(projectRow));
  byId("leave-projects-intro", HTMLParagraphElement).textContent =
    shared_projects.length > 0
      ? "These projects have other members: transfer each to another owner before deleting the account."
      : sole_projects.length > 0
        ? "These projects are yours alone: they are archived with the account. Download each one's export first."
        : "";
}

export function wireLeave(reload: () => Promise<void>): void {
  byId("leave-ask", HTMLButtonElement).addEventListener("click", () => {
    byId("leave-confirm", HTMLDivElement).hidden = false;
    byId("leave-ask", HTMLButtonElement).hidden = true;
  });
  byId("leave-cancel", HTMLButtonElement).addEventListener("click", () => void renderLeave());
  byId("leave-download", HTMLButtonElement).addEventListener("click", () => void downloadExport());
  byId("leave-confirm-button", HTMLButtonElement).addEventListener("click", async () => {
    const asked = await sensitive(() => api<DeletionState>("POST", "/api/auth/account/deletion"));
    if (!asked.ok) return showError(line(), await sentenceFor(asked));
    await reload();
    showInfo(line(), "Deletion scheduled. Every address of the account was told by mail.");
  });
  byId("leave-undo", HTMLButtonElement).addEventListener("click", async () => {
    const undone = await api<{ cancelled: boolean }>("DELETE", "/api/auth/account/deletion");
    if (!undone.ok) return showError(byId("leave-banner-msg", HTMLParagraphElement), await sentenceFor(undone));
    await reload();
    showInfo(line(), "Your account is kept: the deletion is undone.");
  });
}
