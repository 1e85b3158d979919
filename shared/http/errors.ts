// The edge's error rendering, registered once per worker: AppError → the spec envelope, unknown path → 404,
// known path with another method → 405 with Allow, anything unexpected → 500 without internals.
import type { Context, Env, Hono, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError, errorResponse, type Reason } from "../errors";

function pathPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => {
      if (segment === "*") return ".*";
      if (segment.startsWith(":")) return "[^/]+";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${source}/?$`);
}

/** The methods registered for a path (middleware registered for ALL methods does not count). */
export function allowedMethods(routes: readonly { path: string; method: string }[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    if (route.method === "ALL" || route.path.endsWith("*")) continue;
    if (pathPattern(route.path).test(path)) methods.add(route.method);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}

export function notFoundOrMethodNotAllowed<E extends Env>(app: Hono<E>): NotFoundHandler<E> {
  return (c) => {
    const allow = allowedMethods(app.routes, c.req.path);
    if (allow.length > 0 && !allow.includes(c.req.method)) {
      return errorResponse(new AppError("method_not_allowed", { headers: { Allow: allow.join(", ") } }));
    }
    return errorResponse(new AppError("not_found"));
  };
}

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

/** Registers onError and notFound on a worker's root app, once. */
export function installErrorHandling<E extends Env>(app: Hono<E>): void {
  app.onError(renderError);
  app.notFound(notFoundOrMethodNotAllowed(app));
}
