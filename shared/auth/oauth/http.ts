// How every provider call goes out, whichever library function makes it: an 8 s limit, a capped answer, failures
// to connect as OAuthErrors, and plain http only to a loopback test provider. The library itself never follows
// a redirect (it asks fetch for `redirect: manual` and refuses the 3xx), so no endpoint can bounce our credentials.
import { allowInsecureRequests, customFetch } from "oauth4webapi";
import { OAuthError } from "./errors";

/** How long one provider call may take. */
export const PROVIDER_TIMEOUT_MS = 8_000;
/** Largest provider answer read (discovery documents, key sets and token responses are a few KB). */
const MAX_RESPONSE_BYTES = 256 * 1024;
/** Statuses whose Response may not carry a body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** fetch, with a connection failure or timeout as the provider's failure and no answer read past the cap. */
async function boundedFetch(url: string, init: RequestInit): Promise<Response> {
  const host = new URL(url).host;
  try {
    const res = await fetch(url, init);
    if (Number(res.headers.get("content-length") ?? 0) > MAX_RESPONSE_BYTES) {
      await res.body?.cancel();
      throw new OAuthError("oauth_provider_error", `${host} answer too large`);
    }
    const body = NULL_BODY_STATUSES.has(res.status) ? null : await res.arrayBuffer();
    if (body && body.byteLength > MAX_RESPONSE_BYTES) {
      throw new OAuthError("oauth_provider_error", `${host} answer too large`);
    }
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    // An AbortSignal.timeout rejects with a DOMException, which is not an Error in every runtime.
    const why = (err as { name?: unknown } | null)?.name === "TimeoutError" ? "timed out" : "unreachable";
    throw new OAuthError("oauth_provider_error", `${host} ${why}`);
  }
}

export interface ProviderRequestOptions {
  /** A fresh signal per call: the library then never shares one in-flight request between two of ours. */
  signal: () => AbortSignal;
  [customFetch]: typeof boundedFetch;
  [allowInsecureRequests]: boolean;
}

/** Options for every library call to a provider; `loopback` (a local test provider) allows plain http. */
export function providerRequestOptions(loopback: boolean): ProviderRequestOptions {
  return {
    signal: () => AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    [customFetch]: boundedFetch,
    [allowInsecureRequests]: loopback,
  };
}
