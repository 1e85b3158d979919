// The fleet app called in the test's own isolate (not through SELF), so a test can hand it its own bindings: a
// recording or counting D1 in place of DB or of another registry shard (test/helpers/d1-recorder.ts) and AUTH_DB.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { app } from "../../workers/fleet/src/app";
import { freshIp } from "./browser";
import { FLEET } from "./fleet";

/** The app's answer to `request` with `bindings` over the test's env; `settled()` waits for its background work. */
export async function fleetAnswer(
  request: Request,
  bindings: Record<string, D1Database>,
): Promise<{ res: Response; settled: () => Promise<void> }> {
  const ctx = createExecutionContext();
  const res = await app.fetch(request, { ...env, ...bindings }, ctx);
  return { res, settled: () => waitOnExecutionContext(ctx) };
}

/**
 * `client`'s session request (its cookie, same-origin, a fresh client address) answered by the app in this isolate
 * with `changed` bindings over the test's env: a binding missing, refusing writes or failing.
 */
export async function sessionAnswer(
  client: { cookie?: string },
  method: string,
  path: string,
  body: unknown,
  changed: Record<string, unknown>,
): Promise<Response> {
  const headers: Record<string, string> = {
    "cf-connecting-ip": freshIp(),
    "sec-fetch-site": "same-origin",
    cookie: `oc_session=${client.cookie}`,
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  return await app.request(
    `${FLEET}${path}`,
    { method, headers, body: body === undefined ? undefined : JSON.stringify(body) },
    { ...env, ...changed },
  );
}
