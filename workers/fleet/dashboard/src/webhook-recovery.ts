// Recovering a resumed endpoint's missed events (POST /api/webhooks/endpoints/{id}/recover): events registered while
// an endpoint was paused are not sent on resume, so its card offers to queue them, from the last pause on. The
// route walks a page of registrations a call; the button follows its cursor to the end and says how many it queued.
import { type ApiResult, api } from "./api";
import type { Notice } from "./notice";
import { h, time } from "./ui";

interface Recovered {
  queued: number;
  next_cursor: number | null;
}

/** The button, for an active endpoint that was paused once; nothing otherwise. */
export function recoverButton(
  endpoint: { id: string; active: boolean; paused_at: string | null },
  out: Notice,
  refresh: () => Promise<void>,
): (string | Node)[] {
  const pausedAt = endpoint.paused_at;
  if (!endpoint.active || pausedAt === null) return [];
  const run = async () => {
    let queued = 0;
    let cursor: number | null = null;
    do {
      const page: ApiResult<Recovered> = await api<Recovered>(
        "POST",
        `/api/webhooks/endpoints/${endpoint.id}/recover`,
        {
          ...(cursor === null ? {} : { cursor }),
        },
      );
      if (!page.ok) return out.error(page);
      queued += page.data.queued;
      cursor = page.data.next_cursor;
    } while (cursor !== null);
    await refresh();
    out.ok(
      queued === 0
        ? "Nothing to recover: every event since the pause was already sent or queued."
        : `Queued ${queued} event${queued === 1 ? "" : "s"} registered since the pause.`,
    );
  };
  const label = "Recover events since the pause";
  return [
    h(
      "button",
      { type: "button", onclick: run, title: `Paused at ${pausedAt}`, dataset: { recover: endpoint.id } },
      label,
    ),
    h("span", { class: "meta" }, ` (paused ${time(pausedAt)})`),
    " ",
  ];
}
