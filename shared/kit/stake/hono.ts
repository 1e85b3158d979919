// requireStake as Hono middleware (Workers, Bun, Node): decides with the core gate and sets `c.var.stake` (the
// decision, with the session). Refusals answer 401/403/503 `{ok:false, reason, detail}` unless `optional`, which
// lets every request through for the app to read `c.var.stake.ok` itself.
import type { MiddlewareHandler } from "hono";
import { refusal, type StakeDecision } from "./decision";
import { requireStake as createGate, type StakeGate, type StakeGateOptions } from "./gate";

export interface StakeVariables {
  stake: StakeDecision;
}

export interface StakeMiddlewareOptions extends StakeGateOptions {
  /** Never refuse: the route runs with `c.var.stake` set either way. */
  optional?: boolean;
}

/**
 * `app.use("/members/*", requireStake({ authOrigin, minSats: 100_000, minDays: 30 }))`. Create it at module scope
 * (its session keys and verdicts are cached for the isolate's life), or pass a gate made by the core `requireStake`.
 */
export function requireStake(
  options: StakeMiddlewareOptions,
  gate: StakeGate = createGate(options),
): MiddlewareHandler<{ Variables: StakeVariables }> {
  return async (c, next) => {
    const decision = await gate(c.req.raw);
    c.set("stake", decision);
    if (!decision.ok && !options.optional) {
      const { status, headers, body } = refusal(decision);
      return c.json(body, status, headers);
    }
    await next();
  };
}
