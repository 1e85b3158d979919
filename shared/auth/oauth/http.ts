// The one way this code talks to a provider: a bounded fetch that never follows a redirect (a 3xx is a failure,
// so a token or user endpoint cannot bounce a request, and its credentials, somewhere else) and parses JSON.
import { OAuthError } from "./errors";

/** How long one provider call may take. */
export const PROVIDER_TIMEOUT_MS = 8_000;
/** Largest provider answer read (discovery documents and token responses are a few KB). */
const MAX_RESPONSE_BYTES = 256 * 1024;

export interface JsonAnswer {
  status: number;
  body: unknown;
}

/** Fetches `url` and parses its JSON body, whatever the status; network failures and 3xx are OAuthErrors. */
export async function fetchJson(url: string, init: RequestInit = {}): Promise<JsonAnswer> {
  const host = new URL(url).host;
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (err) {
    const why = err instanceof Error && err.name === "TimeoutError" ? "timed out" : "unreachable";
    throw new OAuthError("oauth_provider_error", `${host} ${why}`);
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    throw new OAuthError("oauth_provider_error", `${host} answered a redirect`);
  }
  const declared = Number(res.headers.get("content-length") ?? 0);
  const text = declared > MAX_RESPONSE_BYTES ? undefined : await res.text();
  if (text === undefined || text.length > MAX_RESPONSE_BYTES) {
    await res.body?.cancel().catch(() => {});
    throw new OAuthError("oauth_provider_error", `${host} answer too large`);
  }
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    throw new OAuthError("oauth_provider_error", `${host} answered ${res.status} without JSON`);
  }
}
