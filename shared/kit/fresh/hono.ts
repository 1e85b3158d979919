// requireFresh and requireStepUp as Hono middleware (Workers, Bun, Node): decide with the core gate and set
// `c.var.fresh` (the decision, with the session). Refusals answer 401 `{ok:false, reason:"no_session", detail}` or
// 403 `{ok:false, reason, detail, max_age}` unless `optional`, which lets every request through for the app to read
// `c.var.fresh.ok` itself.
import type { MiddlewareHandler } from "hono";
import { type FreshDecision, refusal } from "./decision";
import {
  requireFresh as createFresh,
  requireStepUp as createStepUp,
  type FreshGate,
  type FreshGateOptions,
  type StepUpGateOptions,
} from "./gate";

export interface FreshVariables {
  fresh: FreshDecision;
}

export interface FreshMiddlewareOptions {
  /** Never refuse: the route runs with `c.var.fresh` set either way. */
  optional?: boolean;
}

function middleware(gate: FreshGate, optional: boolean): MiddlewareHandler<{ Variables: FreshVariables }> {
  return async (c, next) => {
    const decision = await gate(c.req.raw);
    c.set("fresh", decision);
    if (!decision.ok && !optional) {
      const { status, headers, body } = refusal(decision);
      return c.json(body, status, headers);
    }
    await next();
  };
}

/**
 * `app.use("/account/delete", requireFresh({ authOrigin, sudo: 600 }))`. Create it at module scope (the session keys
 * are cached for the isolate's life), or pass a gate made by the core `requireFresh`.
 */
export function requireFresh(
  options: FreshGateOptions & FreshMiddlewareOptions,
  gate: FreshGate = createFresh(options),
): MiddlewareHandler<{ Variables: FreshVariables }> {
  return middleware(gate, options.optional ?? false);
}

/** `app.use("/payouts/*", requireStepUp({ authOrigin, maxAge: 300 }))`: a hardware key within maxAge seconds. */
export function requireStepUp(
  options: StepUpGateOptions & FreshMiddlewareOptions,
  gate: FreshGate = createStepUp(options),
): MiddlewareHandler<{ Variables: FreshVariables }> {
  return middleware(gate, options.optional ?? false);
}
