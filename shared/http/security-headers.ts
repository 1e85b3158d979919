// Security headers on every answer, registered once per worker (security review item 10): `nosniff` and a referrer
// policy everywhere, and on every HTML page a Content-Security-Policy whose scripts come from this origin only (no
// inline script: page scripts are bundled modules among the static assets), `frame-ancestors 'none'` and
// X-Frame-Options (no clickjacking of the sign-in page). A new page gets the policy without doing anything.
import type { MiddlewareHandler } from "hono";
import { setAnswerHeader } from "./answer-header";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // Inline styles cannot run code (inline scripts can): the sign-in page's <style> and Swagger UI's style
  // attributes stay allowed.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const NOSNIFF: [string, string] = ["X-Content-Type-Options", "nosniff"];
// Full URLs only to this origin: a page's query (return_to, codes in flight) never leaks to another site.
const REFERRER_POLICY: [string, string] = ["Referrer-Policy", "strict-origin-when-cross-origin"];
/** What every answer that is not a page carries (a page adds its policy and X-Frame-Options). */
export const ANSWER_SECURITY_HEADERS: readonly [string, string][] = [NOSNIFF, REFERRER_POLICY];

export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    // First, so that an answer with immutable headers is copied once and the rest are set on the copy.
    setAnswerHeader(c, ...NOSNIFF);
    const headers = c.res.headers;
    if (!headers.has(REFERRER_POLICY[0])) headers.set(...REFERRER_POLICY);
    if ((headers.get("content-type") ?? "").startsWith("text/html")) {
      // A page may narrow or extend the policy itself (the OpenID consent page names its app's redirect origin).
      if (!headers.has("Content-Security-Policy")) headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      headers.set("X-Frame-Options", "DENY");
    }
  };
}
