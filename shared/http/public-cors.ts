// CORS for the public, credential-less reads (the verification API, issue 32): any origin may read them
// (`Access-Control-Allow-Origin: *`, never Allow-Credentials, so a browser neither sends nor exposes cookies through
// them), and a preflight on exactly their paths answers 204. No other route of any worker answers CORS but the two
// public documents (the OpenAPI description, the JWKS). Hono's cors() does the work, one per path; the header table is
// also here for the cached answers made before the router.
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";

/** Answer headers a page may read beyond the safelisted ones (Cache-Control and Content-Type already are). */
const EXPOSED = ["Retry-After", "RateLimit", "RateLimit-Policy", "X-Cache", "X-Request-Id"];

/**
 * How long a browser may reuse a preflight's answer. Firefox honours a day; Chromium caps it at 7200 s (2 hours)
 * and uses its cap. `*` and no credentials: the answer is the same for every origin, so no `Vary: Origin`.
 */
export const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

/** Only what these routes read: a JSON body's type (the one request header here that is not safelisted). */
const ALLOWED_HEADERS = ["Content-Type"];

/** What cors() sets on every answer that is not a preflight, as pairs: for an answer made before the router. */
export const PUBLIC_CORS_HEADERS: readonly [string, string][] = [
  ["Access-Control-Allow-Origin", "*"],
  ["Access-Control-Expose-Headers", EXPOSED.join(",")],
];

/** The sentence the OpenAPI description gives each public route. */
export const PUBLIC_CORS_NOTE =
  "Public and credential-less: any origin may call it from a browser (`Access-Control-Allow-Origin: *`, no " +
  "credentials; errors included), and a preflight `OPTIONS` answers 204 without spending the rate limit.";

/** GET routes answer HEAD too (Hono), as their 405's `Allow` says. */
const methodsOf = (method: string) => (method === "get" ? ["GET", "HEAD"] : [method.toUpperCase()]);

/**
 * One middleware for the whole app (mounted on `*`, so the route table and the OpenAPI document list no OPTIONS
 * routes): the public routes' paths get cors() with their own methods; any other path passes untouched. Mounted
 * before the rate limits (a preflight spends no token: it reads nothing and answers a constant) and before the body
 * limit (a 413 is readable too).
 */
export function publicCors(routes: readonly { method: string; path: string }[]): MiddlewareHandler {
  const byPath = new Map<string, MiddlewareHandler>();
  for (const path of new Set(routes.map((route) => route.path))) {
    const allowMethods = routes.filter((route) => route.path === path).flatMap((route) => methodsOf(route.method));
    byPath.set(
      path,
      cors({
        origin: "*",
        allowMethods,
        allowHeaders: ALLOWED_HEADERS,
        exposeHeaders: EXPOSED,
        maxAge: PREFLIGHT_MAX_AGE_SECONDS,
      }),
    );
  }
  return (c, next) => byPath.get(c.req.path)?.(c, next) ?? next();
}
