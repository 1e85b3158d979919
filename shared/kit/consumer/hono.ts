// Hono middleware for a consumer site (Workers, Bun, Node): verifies the request's oc_session cookie or bearer
// token and sets `c.var.oc.session` (the typed claims). Required by default: 401 `{ok:false, reason, detail}` with
// the reason it has none ("session_missing", "session_expired", …); `{ optional: true }` lets anonymous requests
// through with `c.var.oc.reason` saying why.
import type { MiddlewareHandler } from "hono";
import { decideSession, sessionRefusal } from "./gate";
import { type SessionSourceOptions, verifierFor } from "./source";
import { nextState, type OcVariables } from "./state";

export type { OcState, OcVariables } from "./state";

export type SessionMiddlewareOptions = SessionSourceOptions & {
  /** Let requests without a valid session through with `c.var.oc.session` undefined. */
  optional?: boolean;
};

/**
 * `app.use("/account/*", ocSession({ authOrigin }))`. Give `{ verifier }` instead when several gates share one, so
 * the JWKS cache is shared too. Create it at module scope so it lives as long as the isolate.
 */
export function ocSession(options: SessionMiddlewareOptions): MiddlewareHandler<{ Variables: OcVariables }> {
  const verifier = verifierFor("ocSession", options);
  return async (c, next) => {
    const decision = await decideSession(verifier, c.req.raw.headers);
    if (!decision.ok && !options.optional) {
      const { status, headers, body } = sessionRefusal(decision.reason);
      return c.json(body, status, headers);
    }
    c.set(
      "oc",
      nextState(c.get("oc"), { session: decision.session, reason: decision.ok ? undefined : decision.reason }),
    );
    await next();
  };
}
