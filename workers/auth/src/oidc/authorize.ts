// The OpenID Connect rules of an authorization request on top of the library's OAuth checks (issue 33), as pure
// functions: prompt and max_age, when a fresh sign-in is needed, the error redirect back to the app, and the nonce
// kept with the consent transaction (review 3, item 8). The round trip through the sign-in page is resume.ts.
import type { AuthRequest } from "@cloudflare/workers-oauth-provider";

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

/** The request as the consent transaction keeps it: with the request's nonce (null when it sent none). */
type WithNonce = AuthRequest & { oc_nonce: string | null };

/**
 * The request to hand to `beginConsent`: the library seals the whole request object in KV under the handle and gives
 * it back from `approveConsent`, so the nonce travels server-side with it and the consent form never carries it
 * (OpenID Connect Core 3.1.2.1: the ID token's nonce is the authorization request's).
 */
export const withNonce = (request: AuthRequest, nonce: string | null): WithNonce => ({ ...request, oc_nonce: nonce });

/**
 * The nonce and the plain request back from an approved transaction; undefined when the record holds no nonce field
 * (a transaction from before this rule, or a library that stopped keeping it): refused, never a token without it.
 */
export function nonceOf(approved: AuthRequest): { request: AuthRequest; nonce: string | null } | undefined {
  const { oc_nonce: nonce, ...request } = approved as Partial<WithNonce> & AuthRequest;
  if (nonce !== null && typeof nonce !== "string") return undefined;
  return { request, nonce };
}
