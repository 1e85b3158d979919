// The project's pledges with their state in this project, oldest first, filtered by state and paged with "More".
// Route: GET /api/projects/{id}/pledges?state&cursor&limit (registration order; docs/decisions.md).
import { api, query } from "./api";
import { type Column, select, table, timeColumn } from "./forms";
import { notice } from "./notice";
import type { Page, ScreenContext } from "./types";
import { badge, h, moreButton, short } from "./ui";

interface Pledge {
  id: string;
  swearer: string;
  state: string;
  expires_at: string;
  registered_at: string;
}

const COLUMNS: readonly Column<Pledge>[] = [
  { label: "Pledge", cell: (p) => h("code", { title: p.id }, short(p.id)) },
  { label: "Swearer", cell: (p) => h("code", { class: "wrap" }, p.swearer) },
  { label: "State", cell: (p) => badge(p.state) },
  timeColumn("Expires", (p) => p.expires_at),
  timeColumn("Registered", (p) => p.registered_at),
];

export async function pledgesScreen(ctx: ScreenContext) {
  const { container } = ctx;
  // The states come from /dashboard/config.json (the fleet's own list, shared/envelopes/pledge/state.ts).
  const filter = select("State", "state", [["", "All states"], ...ctx.pledgeStates], "");
  filter.input.id = "pledge-filter";
  // Cards on a phone: five columns with an address in one do not fit 390 px (dashboard.css).
  const list = h("div", { id: "pledge-list", class: "cards" });
  const apply = (event?: Event) => {
    event?.preventDefault();
    list.replaceChildren();
    return loadPage(ctx, list, filter.input.value);
  };
  container.replaceChildren(
    h("h3", {}, "Pledges"),
    h(
      "p",
      { class: "hint" },
      "Oldest first, each with its state in this project: an outcome, an abandonment or expiry moves it out of pending.",
    ),
    h(
      "form",
      { onsubmit: apply, class: "filters" },
      filter,
      h("button", { type: "submit", id: "pledge-apply" }, "Filter"),
    ),
    list,
  );
  await apply();
}

async function loadPage(ctx: ScreenContext, list: HTMLElement, state: string, cursor?: string): Promise<void> {
  const out = notice();
  const q = query({ state, cursor });
  const result = await api<{ pledges: Pledge[] } & Page>("GET", `/api/projects/${ctx.project.id}/pledges${q}`);
  if (!out.check(result) || !result.ok) return void list.append(out);
  const empty = state ? `No pledges in this project are ${state}.` : "No pledges are registered in this project yet.";
  const caption = cursor ? "More pledges" : state ? `Pledges that are ${state}` : "All pledges";
  list.append(table(caption, COLUMNS, result.data.pledges, empty));
  const next = result.data.next_cursor;
  if (next) list.append(moreButton("More", () => loadPage(ctx, list, state, next), { id: "pledge-more" }));
}
