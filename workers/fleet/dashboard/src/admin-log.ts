// The admin log: privilege-changing operations, newest first, filtered by event type and paged back with
// `before` (the previous page's next_cursor). Route: GET /api/admin/log?project_id&event_type&before&limit.
import { api, query } from "./api";
import { select, table, timeColumn } from "./forms";
import { notice } from "./notice";
import type { Page, ScreenContext } from "./types";
import { h, moreButton } from "./ui";

const PAGE = 25;

interface Entry {
  seq: number;
  created_at: string;
  event_type: string;
  actor: string;
  target_id: string | null;
  detail: unknown;
}

export async function adminLogScreen(ctx: ScreenContext) {
  const { container } = ctx;
  // The event types come from /dashboard/config.json (the fleet's own list, workers/fleet/src/admin-log.ts).
  const filter = select("Event type", "event_type", [["", "All events"], ...ctx.adminEvents], "");
  filter.input.id = "log-filter";
  const entries = h("div", { id: "log-entries" });
  const apply = (event?: Event) => {
    event?.preventDefault();
    entries.replaceChildren();
    return loadPage(ctx, entries, filter.input.value);
  };
  container.replaceChildren(
    h("h3", {}, "Admin log"),
    h(
      "form",
      { onsubmit: apply, class: "filters" },
      filter,
      h("button", { type: "submit", id: "log-apply" }, "Filter"),
    ),
    entries,
  );
  await apply();
}

async function loadPage(ctx: ScreenContext, box: HTMLElement, eventType: string, before?: string): Promise<void> {
  const out = notice();
  const q = query({ project_id: ctx.project.id, event_type: eventType, before, limit: PAGE });
  const result = await api<{ entries: Entry[] } & Page>("GET", `/api/admin/log${q}`);
  if (!out.check(result) || !result.ok) return void box.append(out);
  const t = table<Entry>(
    before ? `Older entries (before #${before})` : "Latest entries",
    [
      { label: "#", cell: (e) => String(e.seq) },
      timeColumn("When", (e) => e.created_at),
      { label: "Event", cell: (e) => h("span", { class: "event-type" }, e.event_type) },
      { label: "Actor", cell: (e) => h("code", { class: "wrap" }, e.actor) },
      { label: "Target", cell: (e) => (e.target_id ? h("code", {}, e.target_id) : "—") },
      { label: "Detail", cell: (e) => (e.detail ? h("code", { class: "wrap" }, JSON.stringify(e.detail)) : "—") },
    ],
    result.data.entries,
    "No entries.",
  );
  box.append(t);
  const next = result.data.next_cursor;
  if (next) box.append(moreButton("Older entries", () => loadPage(ctx, box, eventType, next), { id: "log-older" }));
}
