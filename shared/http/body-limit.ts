// Request body cap for every route (Hono's bodyLimit also counts chunked bodies without Content-Length).
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../errors";

/** 64 KiB: the largest auth-host body is a signed challenge of well under 2 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

export function limitBody(maxSize: number = MAX_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new AppError("body_too_large", { detail: `at most ${maxSize} bytes` });
    },
  });
}
