// Security headers on every answer, registered once per worker (security review item 10): `nosniff` and a referrer
// policy everywhere, and on every HTML page a Content-Security-Policy with no inline script except by hash,
// `frame-ancestors 'none'` and X-Frame-Options (no clickjacking of the sign-in page). A page that needs an inline
// script names its hash when the worker installs this; a new page gets the policy without doing anything.
import { sha256 } from "@noble/hashes/sha2.js";
import { base64 } from "@scure/base";
import type { MiddlewareHandler } from "hono";
import { utf8 } from "../crypto/digest";

/** The CSP source for one inline script or style, exactly as it stands between its tags. */
export function inlineHash(text: string): string {
  return `'sha256-${base64.encode(sha256(utf8(text)))}'`;
}

export function contentSecurityPolicy(inlineScripts: readonly string[]): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${inlineScripts.map(inlineHash).join(" ")}`.trim(),
    // Inline styles cannot run code (inline scripts can): the sign-in page's <style> and Swagger UI's style
    // attributes stay allowed. A hash here would switch 'unsafe-inline' off in every CSP2 browser.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function securityHeaders(pages: { inlineScripts?: string[] } = {}): MiddlewareHandler {
  const csp = contentSecurityPolicy(pages.inlineScripts ?? []);
  return async (c, next) => {
    await next();
    // An answer passed through from another worker has immutable headers: copy it once to set ours.
    if (Object.isFrozen(c.res.headers) || !canSet(c.res.headers)) c.res = new Response(c.res.body, c.res);
    const headers = c.res.headers;
    headers.set("X-Content-Type-Options", "nosniff");
    // Full URLs only to this origin: a page's query (return_to, codes in flight) never leaks to another site.
    if (!headers.has("Referrer-Policy")) headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
    if ((headers.get("content-type") ?? "").startsWith("text/html")) {
      headers.set("Content-Security-Policy", csp);
      headers.set("X-Frame-Options", "DENY");
    }
  };
}

function canSet(headers: Headers): boolean {
  try {
    headers.set("X-Content-Type-Options", "nosniff");
    return true;
  } catch {
    return false;
  }
}
