// Errors as the services answer them: the status map and reason list derived from the one table (./reasons.ts),
// and the AppError that renders the spec's envelope. Reasons are stable API (service-spec "Versioning" 2).
import { REASON_TABLE } from "./reasons";

export { REASON_TABLE };

export type Reason = keyof typeof REASON_TABLE;

/** Reason → HTTP status, derived from the table (each entry's status is required by the table's type). */
export const REASONS = Object.fromEntries(
  Object.entries(REASON_TABLE).map(([reason, { status }]) => [reason, status]),
) as { readonly [R in Reason]: (typeof REASON_TABLE)[R]["status"] };

/** Is `key` a reason of the table? (A type guard, so no reason is ever made by a cast.) */
export const isReason = (key: string): key is Reason => Object.hasOwn(REASON_TABLE, key);

/** Every reason, in table order. */
export const ALL_REASONS: readonly Reason[] = Object.keys(REASON_TABLE).filter(isReason);

/** The 70 reasons of service-spec.md's fleet error table, in table order (a test holds the table to this list). */
export const SPEC_REASON_COUNT = 70;

export class AppError extends Error {
  readonly reason: Reason;
  readonly status: number;
  readonly detail?: string;
  readonly headers?: Record<string, string>;

  constructor(reason: Reason, options: { detail?: string; headers?: Record<string, string> } = {}) {
    super(options.detail ? `${reason}: ${options.detail}` : reason);
    this.name = "AppError";
    // The compiler proves every reason is in the table; should a string from outside slip in at run time anyway,
    // fail closed: a Response with an undefined status would be a 200.
    this.reason = isReason(reason) ? reason : "internal_error";
    this.status = REASONS[this.reason];
    this.detail = options.detail;
    this.headers = options.headers;
  }
}

export interface ErrorBody {
  ok: false;
  reason: Reason;
  detail?: string;
}

export function errorBody(reason: Reason, detail?: string): ErrorBody {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}

/** Renders an AppError as the spec's envelope `{ok:false, reason, detail?}`. */
export function errorResponse(err: AppError): Response {
  const headers = new Headers({ "content-type": "application/json; charset=UTF-8", ...err.headers });
  // A 429 body is exactly {ok:false, reason:'rate_limited'} (service-spec, Errors).
  const body = err.reason === "rate_limited" ? errorBody(err.reason) : errorBody(err.reason, err.detail);
  return new Response(JSON.stringify(body), { status: err.status, headers });
}

/** GET /api/reasons: the table as data, in table order. */
export function reasonList(): { reason: Reason; status: number; message: string }[] {
  return ALL_REASONS.map((reason) => ({ reason, ...REASON_TABLE[reason] }));
}
