// The edge's error rendering, registered once per worker: AppError → the spec envelope, unknown path → 404,
// known path with another method → 405 with Allow, anything unexpected → 500 without internals.
import type { Context, Env, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { methodNotAllowed } from "hono/method-not-allowed";
import { d1Unavailable, overloadedByD1 } from "../db/d1-unavailable";
import { AppError, errorResponse, type Reason } from "../errors";
import { errorClass } from "./request-line";
import { noteRefusal } from "./request-log";

const HTTP_EXCEPTION_REASON: Record<number, Reason> = {
  400: "bad_request",
  401: "unauthenticated",
  413: "body_too_large",
};

export function renderError(err: Error, c: Context): Response {
  if (err instanceof AppError) return refuse(c, err);
  // D1 overloaded or restarting under any route: 503 `overloaded` with Retry-After, never a 500 (d1-unavailable.ts).
  const unavailable = d1Unavailable(err);
  if (unavailable) return refuse(c, overloadedByD1(unavailable));
  if (err instanceof HTTPException) {
    const reason = err.message.startsWith("Malformed JSON") ? "malformed_json" : HTTP_EXCEPTION_REASON[err.status];
    if (reason) return refuse(c, new AppError(reason));
  }
  // Unexpected: the request's log line names its class and route, never its message (which may quote input).
  return refuse(c, new AppError("internal_error"), errorClass(err));
}

/** The refusal's envelope, its reason noted for the request's log line (request-log.ts). */
function refuse(c: Context, err: AppError, unexpected?: string): Response {
  noteRefusal(c, err, unexpected);
  return errorResponse(err);
}

/**
 * Registers onError and notFound on a worker's root app, once, and Hono's method-not-allowed middleware, which
 * reads the app's own router: a known path with another method is 405 with `Allow`, in the spec's envelope.
 */
export function installErrorHandling<E extends Env>(app: Hono<E>): void {
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        refuse(c, new AppError("method_not_allowed", { headers: { Allow: methods.join(", ") } })),
    }),
  );
  app.onError(renderError);
  app.notFound((c) => refuse(c, new AppError("not_found")));
}
