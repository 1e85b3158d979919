// The edge's error rendering, registered once per worker: AppError → the spec envelope, unknown path → 404,
// known path with another method → 405 with Allow, anything unexpected → 500 without internals.
import type { Context, Env, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { methodNotAllowed } from "hono/method-not-allowed";
import { AppError, errorResponse, type Reason } from "../errors";

const HTTP_EXCEPTION_REASON: Record<number, Reason> = {
  400: "bad_request",
  401: "unauthenticated",
  413: "body_too_large",
};

export function renderError(err: Error, c: Context): Response {
  if (err instanceof AppError) return errorResponse(err);
  if (err instanceof HTTPException) {
    const reason = err.message.startsWith("Malformed JSON") ? "malformed_json" : HTTP_EXCEPTION_REASON[err.status];
    if (reason) return errorResponse(new AppError(reason));
  }
  // Unexpected: log the route and error class only; bodies and headers may hold secrets.
  console.error("unhandled error", { method: c.req.method, path: c.req.path, error: err.name, message: err.message });
  return errorResponse(new AppError("internal_error"));
}

/**
 * Registers onError and notFound on a worker's root app, once, and Hono's method-not-allowed middleware, which
 * reads the app's own router: a known path with another method is 405 with `Allow`, in the spec's envelope.
 */
export function installErrorHandling<E extends Env>(app: Hono<E>): void {
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (_c, methods) =>
        errorResponse(new AppError("method_not_allowed", { headers: { Allow: methods.join(", ") } })),
    }),
  );
  app.onError(renderError);
  app.notFound(() => errorResponse(new AppError("not_found")));
}
