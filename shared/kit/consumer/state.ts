// What the kit's middlewares expose to the route, under one name in every framework: `c.var.oc` in Hono, `req.oc`
// in Express and node:http (never `req.session`, which express-session owns). Each gate adds its own part; the
// session is set by whichever ran.
import type { FreshDecision } from "../fresh/decision";
import type { StakeDecision } from "../stake/decision";
import type { SessionClaims, SessionFailure } from "./session-verifier";

export interface OcState {
  /** The verified claims; undefined on an anonymous request (optional mode). */
  session: SessionClaims | undefined;
  /** Why `session` is undefined: a SessionFailure such as "session_expired". */
  reason?: SessionFailure | undefined;
  /** requireStake's decision. */
  stake?: StakeDecision | undefined;
  /** requireFresh's or requireStepUp's decision (the last gate that ran). */
  freshness?: FreshDecision | undefined;
}

/** Hono: `new Hono<{ Variables: OcVariables }>()`, then `c.var.oc`. */
export interface OcVariables {
  oc: OcState;
}

/** The state after a gate: the previous one (when another gate ran first) with this gate's parts. */
export function nextState(previous: OcState | undefined, parts: Partial<OcState>): OcState {
  return { session: undefined, ...previous, ...parts };
}
