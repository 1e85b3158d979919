// The OpenID Connect rules of an authorization request on top of the library's OAuth checks (issue 33), as pure
// functions: prompt and max_age, when a fresh sign-in is needed, the error redirect back to the app, and the
// round trip through the sign-in page (the request's query carried as one base64url value, since the sign-in
// page's return_to refuses percent-encoded separators, which every redirect_uri holds).

import type { AuthRequest } from "@cloudflare/workers-oauth-provider";
import { base64url } from "jose";
import { AUTHORIZE_PATH } from "./server";

/** The parameter that carries a request's query through the sign-in page. */
export const RESUME_PARAM = "oc_resume";
/** Set on the resumed query: the time (ms) the request was first seen; a sign-in after it is fresh. */
export const AFTER_PARAM = "oc_after";

export interface Prompt {
  none: boolean;
  login: boolean;
  consent: boolean;
}

/** `prompt` and `max_age` as the request gives them, or the reason they are refused. */
export function readPrompt(query: URLSearchParams): { prompt: Prompt; maxAge: number | null } | { error: string } {
  const values = new Set((query.get("prompt") ?? "").split(" ").filter(Boolean));
  for (const value of values) {
    if (!["none", "login", "consent", "select_account"].includes(value))
      return { error: `prompt=${value} is not supported` };
  }
  if (values.has("none") && values.size > 1) return { error: "prompt=none cannot be combined with another value" };
  const rawMaxAge = query.get("max_age");
  let maxAge: number | null = null;
  if (rawMaxAge !== null) {
    if (!/^\d{1,10}$/.test(rawMaxAge)) return { error: "max_age must be a whole number of seconds" };
    maxAge = Number(rawMaxAge);
  }
  return { prompt: { none: values.has("none"), login: values.has("login"), consent: values.has("consent") }, maxAge };
}

/**
 * Whether the person must sign in (again) first: nobody is signed in; or `prompt=login` or `max_age` asks for a proof
 * newer than the session's (`sudo_at`, epoch seconds), unless a sign-in already happened after the request began.
 */
export function needsSignIn(options: {
  authTime: number | null;
  prompt: Prompt;
  maxAge: number | null;
  now: number;
  after: number | null;
}): boolean {
  const { authTime, prompt, maxAge, now, after } = options;
  if (authTime === null) return true;
  const freshSinceRequest = after !== null && authTime >= Math.floor(after / 1000);
  if (freshSinceRequest) return false;
  if (prompt.login) return true;
  return maxAge !== null && Math.floor(now / 1000) - authTime > maxAge;
}

/** The redirect back to the app with an error (RFC 6749 4.1.2.1, RFC 9207's `iss`); only for a validated request. */
export function errorRedirect(request: AuthRequest, code: string, description: string): string {
  const url = new URL(request.redirectUri);
  url.searchParams.set("error", code);
  url.searchParams.set("error_description", description);
  if (request.state) url.searchParams.set("state", request.state);
  if (request.issuer) url.searchParams.set("iss", request.issuer);
  return url.href;
}

/** The sign-in page's return_to that resumes this request: its query, marked with when it began. */
export function resumePath(query: URLSearchParams, now: number): string {
  const carried = new URLSearchParams(query);
  carried.delete(RESUME_PARAM);
  carried.set(AFTER_PARAM, String(now));
  return `${AUTHORIZE_PATH}?${RESUME_PARAM}=${base64url.encode(carried.toString())}`;
}

/** The query of a request, resumed or as sent; undefined when the resume value does not decode. */
export function requestQuery(url: URL): URLSearchParams | undefined {
  const resume = url.searchParams.get(RESUME_PARAM);
  if (resume === null) return url.searchParams;
  try {
    return new URLSearchParams(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(base64url.decode(resume)),
    );
  } catch {
    return undefined;
  }
}
