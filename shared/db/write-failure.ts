// A write that failed for a reason of the database's own (not a constraint the caller maps to 409): logged by class
// and cause only, answered as the table's 500 reason for that write, so an integrator can tell a failed write
// from a bug. Constraint errors pass through untouched for the caller to name.
import { AppError, type Reason } from "../errors";
import { errorClass } from "../http/request-line";
import { logEvent } from "../http/request-log";
import { d1Unavailable, overloadedByD1 } from "./d1-unavailable";

const CONSTRAINT = /constraint failed|UNIQUE|FOREIGN KEY|CHECK/i;

export async function asWriteFailure<T>(
  reason: Extract<Reason, "insert_failed" | "update_failed" | "apply_failed">,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof AppError || CONSTRAINT.test(String(err))) throw err;
    // D1's own "not now" (overloaded, restarting): a 503 with Retry-After, not a failed write (d1-unavailable.ts).
    const unavailable = d1Unavailable(err);
    if (unavailable) throw overloadedByD1(unavailable);
    logEvent(undefined, "database_write_failed", { reason, error: errorClass(err) }, "error");
    throw new AppError(reason);
  }
}
