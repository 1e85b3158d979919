// The request log (README "Logs"), mounted first in each worker: it names the request (`x-request-id`) and, after
// the answer, writes one JSON line built by request-line.ts from what the request's code noted on the way (the
// caller, the project, the refusal). Other events go through logEvent. Workers Logs keeps both (wrangler.toml).
import type { Context, Env, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppError, Reason } from "../errors";
import { setAnswerHeader } from "./answer-header";
import {
  type CallerKind,
  type EventFields,
  endpointPattern,
  eventLine,
  type RequestFacts,
  requestLine,
  type WorkerName,
} from "./request-line";

export const REQUEST_ID_HEADER = "x-request-id";

/** A Cloudflare ray id (16 hex, a dash, the colo); anything else in the header (a local client's) is not trusted. */
const RAY_ID = /^[0-9a-f]{16}(?:-[A-Z0-9]{2,8})?$/i;

/** The request's id: its ray id, which Cloudflare's own logs and a service binding's request also carry, else new. */
export function requestId(headers: Headers): string {
  const ray = headers.get("cf-ray");
  return ray && RAY_ID.test(ray) ? ray : crypto.randomUUID();
}

/** What the request's code learned on the way, read when the line is written. */
interface Notes {
  caller?: CallerKind;
  project?: string;
  refusal?: { reason: Reason; status: number };
  errorClass?: string;
}

// Keyed by the request's context (one per request, shared by every sub-app's handlers): nothing outlives it.
const notes = new WeakMap<Context, Notes>();

const note = (c: Context, more: Notes) => notes.set(c, { ...notes.get(c), ...more });

/** The caller's kind, where a worker resolves it in its own code (the auth host's session context). */
export const noteCaller = (c: Context, kind: CallerKind) => note(c, { caller: kind });

/** The project a request acts on, once its access to it is established (the fleet's projectAccess). */
export const noteProject = (c: Context, projectId: string) => note(c, { project: projectId });

/**
 * The refusal installErrorHandling rendered, with its status: a middleware that later swaps the answer for another
 * (of another status) leaves no stale reason on the line. `errorClass` only for an unexpected error.
 */
export function noteRefusal(c: Context, err: AppError, errorClass?: string): void {
  note(c, { refusal: { reason: err.reason, status: err.status }, ...(errorClass && { errorClass }) });
}

export interface RequestLogOptions<E extends Env> {
  worker: WorkerName;
  /** How the worker knows its caller when a middleware of its own resolved it (the fleet's c.var.caller). */
  caller?: (c: Context<E>) => { kind: CallerKind; project?: string } | undefined;
}

export function requestLog<E extends Env>(options: RequestLogOptions<E>): MiddlewareHandler<E> {
  return async (c, next) => {
    const startedAt = Date.now();
    const id = requestId(c.req.raw.headers);
    await next();
    setAnswerHeader(c, REQUEST_ID_HEADER, id);
    const noted = notes.get(c) ?? {};
    const caller = options.caller?.(c);
    const status = c.res.status;
    const refusal = noted.refusal?.status === status ? noted.refusal : undefined;
    writeRequestLine({
      id,
      worker: options.worker,
      method: c.req.method,
      route: endpointPattern(matchedRoutes(c)),
      status,
      startedAt,
      endedAt: Date.now(),
      caller: caller?.kind ?? noted.caller,
      project: noted.project ?? caller?.project,
      reason: refusal?.reason,
      errorClass: refusal && noted.errorClass,
    });
  };
}

/**
 * An answer made before the router (the verify worker's kept check hits): the same id, header and line as the
 * middleware's, for a route the caller names. The answer's headers must be its own (a new Response).
 */
export function logAnswer(
  request: Request,
  answer: Response,
  at: { worker: WorkerName; route: string; startedAt: number },
): Response {
  const id = requestId(request.headers);
  answer.headers.set(REQUEST_ID_HEADER, id);
  writeRequestLine({ ...at, id, method: request.method, status: answer.status, endedAt: Date.now() });
  return answer;
}

// A 5xx is written at level error, so Workers Logs' level filter finds the failures.
function writeRequestLine(facts: RequestFacts): void {
  const line = JSON.stringify(requestLine(facts));
  if (facts.status >= 500) console.error(line);
  else console.log(line);
}

/** Any other line (a cron run, a failure after the answer): JSON with `t`, `worker` (when known) and `event`. */
export function logEvent(
  worker: WorkerName | undefined,
  event: string,
  fields: EventFields = {},
  level: "info" | "error" = "info",
): void {
  const line = JSON.stringify(eventLine(worker, event, fields, Date.now()));
  if (level === "error") console.error(line);
  else console.log(line);
}
