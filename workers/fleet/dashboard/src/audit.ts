// Audit export: download the signed bundle of every envelope (ndjson, json or csv; the last line or member is the
// signed manifest, checked offline by `npm run verify-bundle`), and the list of completed exports with counts.
// Routes: GET /api/audit/export?project_id&format, GET /api/audit/bundles?project_id. Below them, the log's
// witnesses (log-witnesses.ts).
import { api, query } from "./api";
import { table, timeColumn } from "./forms";
import { witnessSection } from "./log-witnesses";
import { notice } from "./notice";
import type { ScreenContext } from "./types";
import { h, section, short } from "./ui";

const FORMATS = [
  ["ndjson", "NDJSON (one envelope per line)"],
  ["json", "JSON (one document)"],
  ["csv", "CSV (kind, id, envelope)"],
] as const;

interface Bundle {
  id: string;
  format: string;
  counts: Record<string, number>;
  sha256: string;
  kid: string;
  created_at: string;
}

export async function auditScreen(ctx: ScreenContext) {
  const { project, container } = ctx;
  const bundles = h("div", { id: "bundle-list" });
  const links = FORMATS.map(([format, label]) =>
    h(
      "li",
      {},
      h(
        "a",
        { href: `/api/audit/export${query({ project_id: project.id, format })}`, download: "", dataset: { format } },
        `Download ${label}`,
      ),
    ),
  );
  container.replaceChildren(
    section(
      "Download a signed audit bundle",
      h(
        "p",
        { class: "hint" },
        "Every envelope of the project, byte for byte, in replay order, with a signed manifest.",
      ),
      h("ul", { class: "downloads" }, links),
    ),
    section(
      "Completed exports",
      h("button", { type: "button", id: "bundles-refresh", onclick: () => loadBundles(ctx, bundles) }, "Refresh"),
      bundles,
    ),
  );
  await loadBundles(ctx, bundles);
  container.append(await witnessSection(ctx));
}

async function loadBundles(ctx: ScreenContext, box: HTMLElement) {
  const out = notice();
  const result = await api<{ bundles: Bundle[] }>("GET", `/api/audit/bundles${query({ project_id: ctx.project.id })}`);
  if (!out.check(result) || !result.ok) return box.replaceChildren(out);
  const total = (b: Bundle) => String(Object.values(b.counts).reduce((sum, n) => sum + n, 0));
  box.replaceChildren(
    table<Bundle>(
      "Audit bundles, newest first",
      [
        { label: "Bundle", cell: (b) => h("code", {}, b.id) },
        { label: "Format", cell: (b) => b.format },
        { label: "Envelopes", cell: total },
        { label: "sha256", cell: (b) => h("code", { title: b.sha256 }, short(b.sha256)) },
        { label: "Key", cell: (b) => h("code", {}, b.kid) },
        timeColumn("Created", (b) => b.created_at),
      ],
      result.data.bundles,
      "No exports yet.",
    ),
  );
}
