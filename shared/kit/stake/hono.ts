// requireStake as Hono middleware (Workers, Bun, Node): decides with the core gate and sets `c.var.oc.stake` (the
// decision) and `c.var.oc.session`. Refusals answer 401/403/503 `{ok:false, reason, detail}` unless `optional`, which
// lets every request through for the app to read `c.var.oc.stake.ok` itself.
import type { MiddlewareHandler } from "hono";
import { nextState, type OcVariables } from "../consumer/state";
import { refusal } from "./decision";
import { requireStake as createGate, type StakeGate, type StakeGateOptions } from "./gate";

export type { OcState, OcVariables } from "../consumer/state";

export type StakeMiddlewareOptions = StakeGateOptions & {
  /** Never refuse: the route runs with `c.var.oc.stake` set either way. */
  optional?: boolean;
};

/**
 * `app.use("/members/*", requireStake({ authOrigin, minSats: 100_000, minDays: 30 }))`. Create it at module scope
 * (its session keys and verdicts are cached for the isolate's life), or pass a gate made by the core `requireStake`.
 */
export function requireStake(
  options: StakeMiddlewareOptions,
  gate: StakeGate = createGate(options),
): MiddlewareHandler<{ Variables: OcVariables }> {
  return async (c, next) => {
    const decision = await gate(c.req.raw);
    if (!decision.ok && !options.optional) {
      const { status, headers, body } = refusal(decision);
      return c.json(body, status, headers);
    }
    c.set("oc", nextState(c.get("oc"), { session: decision.session, stake: decision }));
    await next();
  };
}
