// The dashboard's one way to call the fleet API. Same origin, so the browser sends the oc_session cookie and
// `Sec-Fetch-Site: same-origin` (the spec's rule for browser writes). Every answer becomes an ApiResult; screens
// show `reason` as the API gave it, beside the sentence GET /api/reasons gives for it.

export type ApiResult<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; reason: string; detail: string | null };
export type Failure = Extract<ApiResult<unknown>, { ok: false }>;

/** `{a: "1", b: undefined}` → `?a=1` (undefined and empty values left out). */
export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") q.set(key, String(value));
  const text = q.toString();
  return text ? `?${text}` : "";
}

/** The JSON the API answered, typed by the caller: the API's schemas (GET /api/openapi) are its contract. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch (err) {
    return { ok: false, status: 0, reason: "network_error", detail: String(err) };
  }
  const data = (await res.json().catch(() => null)) as { ok?: boolean; reason?: string; detail?: string } | null;
  if (res.ok && data && data.ok !== false) return { ok: true, status: res.status, data: data as T };
  return { ok: false, status: res.status, reason: data?.reason ?? `http_${res.status}`, detail: data?.detail ?? null };
}

/** Human sentences of the reasons, from the server's one error table (GET /api/reasons), loaded once at boot. */
const messages = new Map<string, string>();

export async function loadMessages(): Promise<void> {
  const result = await api<{ reasons: { reason: string; message?: string }[] }>("GET", "/api/reasons");
  if (!result.ok) return;
  for (const { reason, message } of result.data.reasons) if (message) messages.set(reason, message);
}

/** The sentence for a reason, if the server's table has one (until then the notice shows the reason code alone). */
export const messageFor = (reason: string): string | undefined => messages.get(reason);
