// The fleet app called in the test's own isolate (not through SELF), so a test can hand it its own bindings: a
// recording or counting D1 in place of DB or of another registry shard (test/helpers/d1-recorder.ts) and AUTH_DB.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { app } from "../../workers/fleet/src/app";

/** The app's answer to `request` with `bindings` over the test's env; `settled()` waits for its background work. */
export async function fleetAnswer(
  request: Request,
  bindings: Record<string, D1Database>,
): Promise<{ res: Response; settled: () => Promise<void> }> {
  const ctx = createExecutionContext();
  const res = await app.fetch(request, { ...env, ...bindings }, ctx);
  return { res, settled: () => waitOnExecutionContext(ctx) };
}
