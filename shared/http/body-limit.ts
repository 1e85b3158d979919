// Request body cap for every route (Hono's bodyLimit also counts chunked bodies without Content-Length).
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../errors";

/** 64 KiB: the largest auth-host body is a signed challenge of well under 2 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * GET and HEAD pass untouched: no handler of either reads a body, so there is nothing to bound, and asking the
 * runtime for the request's body stream was the largest cost of a cached `/api/check` hit after the limiter.
 */
export function limitBody(maxSize: number = MAX_BODY_BYTES): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError("body_too_large", { detail: `at most ${maxSize} bytes` });
    },
  });
  return (c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limit(c, next));
}
