// requireFresh and requireStepUp as Hono middleware (Workers, Bun, Node): decide with the core gate and set
// `c.var.oc.freshness` (the decision) and `c.var.oc.session`. Refusals answer 401 `{ok:false, reason, detail}` (no
// session, and why) or 403 `{ok:false, reason, detail, maxAge}` unless `optional`, which lets every request through
// for the app to read `c.var.oc.freshness.ok` itself.
import type { MiddlewareHandler } from "hono";
import { nextState, type OcVariables } from "../consumer/state";
import { refusal } from "./decision";
import {
  requireFresh as createFresh,
  requireStepUp as createStepUp,
  type FreshGate,
  type FreshGateOptions,
} from "./gate";

export type { OcState, OcVariables } from "../consumer/state";

export type FreshMiddlewareOptions = FreshGateOptions & {
  /** Never refuse: the route runs with `c.var.oc.freshness` set either way. */
  optional?: boolean;
};

function middleware(gate: FreshGate, optional: boolean): MiddlewareHandler<{ Variables: OcVariables }> {
  return async (c, next) => {
    const decision = await gate(c.req.raw);
    if (!decision.ok && !optional) {
      const { status, headers, body } = refusal(decision);
      return c.json(body, status, headers);
    }
    c.set("oc", nextState(c.get("oc"), { session: decision.session, freshness: decision }));
    await next();
  };
}

/**
 * `app.use("/account/delete", requireFresh({ authOrigin, maxAge: 600 }))`. Create it at module scope (the session
 * keys are cached for the isolate's life), or pass a gate made by the core `requireFresh`.
 */
export function requireFresh(
  options: FreshMiddlewareOptions,
  gate: FreshGate = createFresh(options),
): MiddlewareHandler<{ Variables: OcVariables }> {
  return middleware(gate, options.optional ?? false);
}

/** `app.use("/payouts/*", requireStepUp({ authOrigin, maxAge: 300 }))`: a hardware key within maxAge seconds. */
export function requireStepUp(
  options: FreshMiddlewareOptions,
  gate: FreshGate = createStepUp(options),
): MiddlewareHandler<{ Variables: OcVariables }> {
  return middleware(gate, options.optional ?? false);
}
