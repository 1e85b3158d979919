// After a registration answers 201, its project's log integrator is poked in the background (waitUntil), so the
// registration waits for nothing. Pokes are coalesced per project and isolate: one in flight at a time, and one more
// after it when registrations committed meanwhile, so every committed leaf is followed by a poke that started after
// it. A poke answers when the integrator's alarm fires; until shortly before then, a leaf committed here is in that
// integration already, so no poke is sent: under steady load a project costs about one poke a second per isolate,
// not one per registration (measured: bench/RESULTS.md).
import type { MiddlewareHandler } from "hono";
import { errorFields } from "../../../../shared/http/request-line";
import { logEvent } from "../../../../shared/http/request-log";
import type { FleetBindings, FleetEnv } from "../env";

/** Projects with a leaf committed in this isolate since their last poke started. */
const noted = new Set<string>();
const pokes = new Map<string, { running: Promise<void>; again: boolean }>();
/** Per project, until when a committed leaf is sure to be in an integration already set (its alarm, less a margin). */
const coveredUntil = new Map<string, number>();
/** Room for the clocks of this isolate and the integrator's and for the alarm's first read. */
const COVER_MARGIN_MS = 250;

/** A registration's leaf was committed (called after its batch). */
export function noteLogLeaf(projectId: string): void {
  noted.add(projectId);
}

/** Pokes the project's integrator; concurrent callers share the poke in flight and ask for one more after it. */
export function coalescedPoke(env: Pick<FleetBindings, "LOG_INTEGRATOR">, projectId: string): Promise<void> {
  const current = pokes.get(projectId);
  if (current) {
    current.again = true;
    return current.running;
  }
  const entry = { running: Promise.resolve(), again: false };
  entry.running = (async () => {
    try {
      do {
        entry.again = false;
        const alarmAt = await env.LOG_INTEGRATOR.get(env.LOG_INTEGRATOR.idFromName(projectId)).poke(projectId);
        coveredUntil.set(projectId, alarmAt - COVER_MARGIN_MS);
      } while (entry.again);
    } finally {
      pokes.delete(projectId);
    }
  })();
  pokes.set(projectId, entry);
  return entry.running;
}

export const integrateAfterWrite: MiddlewareHandler<FleetEnv> = async (c, next) => {
  await next();
  if (c.req.method !== "POST" || c.res.status !== 201 || noted.size === 0) return;
  const projects = [...noted];
  noted.clear();
  const now = Date.now();
  for (const projectId of projects) {
    if (now < (coveredUntil.get(projectId) ?? 0)) continue;
    c.executionCtx.waitUntil(
      coalescedPoke(c.env, projectId).catch((err: unknown) =>
        logEvent("fleet", "log_poke_failed", errorFields(err), "error"),
      ),
    );
  }
};
