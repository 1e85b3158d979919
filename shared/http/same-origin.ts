// CSRF guard on browser-driven state changes (service-spec Authentication 4) using Fetch Metadata:
// `Sec-Fetch-Site` must be `same-origin`; without it, `Origin` must equal this origin exactly; with neither header,
// only a request that carries no session cookie (a server or script client) passes. Safe methods are not checked.
import type { Context, MiddlewareHandler } from "hono";
import { readSessionCookies } from "../auth/cookie";
import { AppError } from "../errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface SameOriginOptions {
  /** Requests this returns true for are exempt (a bearer-token call from a server runtime). */
  exempt?: (c: Context) => boolean;
}

export type OriginVerdict = "allow" | "block";

/** Pure decision, so each case of the test table can be checked without a worker. */
export function judgeOrigin(input: {
  method: string;
  requestOrigin: string;
  secFetchSite: string | undefined;
  origin: string | undefined;
  hasSessionCookie: boolean;
}): OriginVerdict {
  if (SAFE_METHODS.has(input.method.toUpperCase())) return "allow";
  if (input.secFetchSite !== undefined) return input.secFetchSite === "same-origin" ? "allow" : "block";
  if (input.origin !== undefined) return input.origin === input.requestOrigin ? "allow" : "block";
  return input.hasSessionCookie ? "block" : "allow";
}

export function sameOrigin(options: SameOriginOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    if (!options.exempt?.(c)) {
      const verdict = judgeOrigin({
        method: c.req.method,
        requestOrigin: new URL(c.req.url).origin,
        secFetchSite: c.req.header("sec-fetch-site"),
        origin: c.req.header("origin"),
        hasSessionCookie: readSessionCookies(c.req.header("cookie")).length > 0,
      });
      if (verdict === "block") throw new AppError("cross_site_blocked");
    }
    await next();
  };
}
