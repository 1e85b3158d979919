// After a registration answers 201, its event is fanned out and delivered in the background (waitUntil), so the
// client does not wait for receivers; the cron sweep catches anything this misses. One sweep runs at a time per
// isolate: a write that lands while one runs asks for one more pass instead of starting its own, so a burst of N
// registrations costs about two sweeps, not N concurrent sweeps over the same outbox rows (measured: bench/).
import type { MiddlewareHandler } from "hono";
import { withPrimary } from "../../../../shared/db/read-replicas";
import { errorFields } from "../../../../shared/http/request-line";
import { logEvent } from "../../../../shared/http/request-log";
import type { FleetBindings, FleetEnv } from "../env";
import { dispatch } from "./dispatch";

let running: Promise<void> | undefined;
let again = false;
/**
 * Events written in this isolate that wait for their fan-out (a registration in a project with an active
 * endpoint; the others are written fanned out, registry/store.ts). Zero: a 201 starts no sweep, as there is nothing
 * to route. A hint, not a ledger: an event it misses (an isolate gone before its sweep) is the cron sweep's.
 */
let pendingEvents = 0;

/** A registration wrote an event that waits for its fan-out (called after its batch committed). */
export function notePendingEvent(): void {
  pendingEvents += 1;
}

/** Runs dispatch until no write asked for another pass; concurrent callers share the run in flight. */
export function coalescedDispatch(env: FleetBindings): Promise<void> {
  if (running) {
    again = true;
    return running;
  }
  const run = (async () => {
    try {
      do {
        again = false;
        // Events noted from here on may be committed after this pass read the outbox: they ask for another.
        pendingEvents = 0;
        await dispatch(env);
      } while (again);
    } finally {
      running = undefined;
    }
  })();
  running = run;
  return run;
}

export const dispatchAfterWrite: MiddlewareHandler<FleetEnv> = async (c, next) => {
  await next();
  if (c.req.method === "POST" && c.res.status === 201 && pendingEvents > 0) {
    // At the primary, not on this request's D1 session: a later pass of the shared run fans out events that other
    // requests wrote after this one, which a replica as new as this request's writes need not hold yet (issue 26).
    c.executionCtx.waitUntil(
      coalescedDispatch(withPrimary(c.env)).catch((err: unknown) =>
        logEvent("fleet", "webhook_dispatch_failed", errorFields(err), "error"),
      ),
    );
  }
};
