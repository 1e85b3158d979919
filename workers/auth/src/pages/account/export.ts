// "Download my data" (issue 46, item 4): fetches the account's export (GET /api/auth/account/export, behind a fresh
// sudo: `sensitive` asks for the proof inline and tries again) and hands the file to the browser as a download.
import type { ApiResult } from "../shared/api";
import { byId } from "../signin/dom";
import { sentenceFor, showError, showInfo } from "../signin/messages";
import { sensitive } from "./reauth";

const EXPORT_PATH = "/api/auth/account/export";
const line = () => byId("export-msg", HTMLParagraphElement);

/** The export as a file, or the refusal as the API's other answers give it (so `sensitive` can read its reason). */
async function fetchExport(): Promise<ApiResult<{ blob: Blob; name: string }>> {
  let res: Response;
  try {
    res = await fetch(EXPORT_PATH, { credentials: "same-origin" });
  } catch {
    return { ok: false, status: 0, reason: undefined };
  }
  if (!res.ok) {
    const json = (await res.json().catch(() => ({}))) as { reason?: unknown };
    return { ok: false, status: res.status, reason: typeof json.reason === "string" ? json.reason : undefined };
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "account.json";
  return { ok: true, body: { blob: await res.blob(), name } };
}

/** Saves `blob` as `name` through a temporary link (the page's own origin: no popup, no new window). */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Downloads the export; true when the file was handed over. */
export async function downloadExport(): Promise<boolean> {
  showInfo(line(), "Preparing the file…");
  const result = await sensitive(fetchExport);
  if (!result.ok) {
    showError(line(), await sentenceFor(result));
    return false;
  }
  save(result.body.blob, result.body.name);
  showInfo(line(), `Downloaded ${result.body.name}.`);
  return true;
}

export function wireExport(): void {
  byId("export-download", HTMLButtonElement).addEventListener("click", () => void downloadExport());
}
