// This host's JSON API as its pages call it: same-origin, JSON in and out, and a failure as its reason (or none,
// when the network or the answer's body failed), which the sign-in page's messages.ts turns into a sentence.

export type ApiResult<T> = { ok: true; body: T } | { ok: false; status: number; reason: string | undefined };

export async function api<T>(
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      ...(body !== undefined && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  } catch {
    return { ok: false, status: 0, reason: undefined };
  }
  const json: unknown = await res.json().catch(() => undefined);
  if (res.ok && json !== undefined) return { ok: true, body: json as T };
  const reason = typeof json === "object" && json !== null && "reason" in json ? json.reason : undefined;
  return { ok: false, status: res.status, reason: typeof reason === "string" ? reason : undefined };
}
