// What one log line holds (README "Logs"), as pure functions of what the middleware read: the request line, the
// event line, the route a request is named by, an error's class. Never a query, a header or a body: none of them
// is an input here, so no secret they carry can reach a line (shared/http/request-log.ts reads and writes).
import { COMPOSED_HANDLER } from "hono/utils/constants";
import { AppError, type Reason } from "../errors";

export type WorkerName = "auth" | "fleet" | "verify";
export type CallerKind = "anonymous" | "session" | "token";

/** One request, as the JSON line the README's field table describes (field order as written). */
export interface RequestLine {
  t: string;
  id: string;
  worker: WorkerName;
  method: string;
  /** The route pattern (`/api/tokens/:id`), never the path with its ids; null when no route matched. */
  route: string | null;
  status: number;
  reason?: Reason;
  ms: number;
  caller: CallerKind;
  project?: string;
  /** An unexpected error (the 500 `internal_error` that is not a refusal): its class and the route it broke. */
  error?: { class: string; route: string | null };
}

export interface RequestFacts {
  id: string;
  worker: WorkerName;
  method: string;
  route: string | null;
  status: number;
  startedAt: number;
  endedAt: number;
  caller?: CallerKind;
  project?: string;
  reason?: Reason;
  errorClass?: string;
}

export function requestLine(f: RequestFacts): RequestLine {
  return {
    t: new Date(f.startedAt).toISOString(),
    id: f.id,
    worker: f.worker,
    method: f.method,
    route: f.route,
    status: f.status,
    ...(f.reason !== undefined && { reason: f.reason }),
    ms: Math.max(0, f.endedAt - f.startedAt),
    caller: f.caller ?? "anonymous",
    ...(f.project !== undefined && { project: f.project }),
    ...(f.errorClass !== undefined && { error: { class: f.errorClass, route: f.route } }),
  };
}

/** An event's fields are scalars: a whole object (an error, a body, a report with nested data) cannot slip in. */
export type EventFields = Record<string, string | number | boolean | null | undefined>;

export interface EventLine {
  t: string;
  worker?: WorkerName;
  event: string;
  [field: string]: string | number | boolean | null | undefined;
}

/** An event outside a request's line (a cron run, a failure after the answer); `worker` absent from shared code. */
export function eventLine(worker: WorkerName | undefined, event: string, fields: EventFields, now: number): EventLine {
  const head = { t: new Date(now).toISOString(), ...(worker && { worker }), event };
  // The head's keys first, and its values kept over fields of the same name.
  return Object.assign({ ...head }, fields, head);
}

/**
 * An error as a log may name it: its class, and a refusal's reason. Never its message: a library's message can
 * quote its input (a JSON parse error quotes the text, a failed query its parameters: addresses, hashes).
 */
export function errorFields(err: unknown): { error: string; reason?: Reason } {
  return err instanceof AppError ? { error: "AppError", reason: err.reason } : { error: errorClass(err) };
}

/** The class of a thrown value: its `name` when it says more than "Error" (TypeError, AbortError), else its constructor. */
export function errorClass(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  return err.name && err.name !== "Error" ? err.name : err.constructor?.name || "Error";
}

/** What the request log needs of a matched route (Hono's RouterRoute). */
export interface MatchedRoute {
  path: string;
  handler: unknown;
}

/**
 * The pattern of the route that answers (or would have, had a middleware not refused first): the first matched
 * route whose handler is an endpoint, in Hono's own sense (hono/dev `inspectRoutes`: a function taking `next` is
 * middleware; a sub-app's error-handling wrapper points at the handler it wraps). Middleware patterns (`*`,
 * `/api/*`) never name a request: a path nothing answers is `null`, whatever middleware it passed.
 */
export function endpointPattern(routes: readonly MatchedRoute[]): string | null {
  return routes.find((route) => isEndpoint(route.handler))?.path ?? null;
}

function isEndpoint(handler: unknown): boolean {
  let target = handler;
  while (typeof target === "function" && COMPOSED_HANDLER in target) {
    target = (target as unknown as Record<string, unknown>)[COMPOSED_HANDLER];
  }
  return typeof target === "function" && target.length < 2;
}
