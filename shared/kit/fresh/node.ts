// requireFresh and requireStepUp for Node: Express/Connect middleware `(req, res, next)` on the core gate; sets
// `req.oc.freshness` (the decision) and `req.oc.session` (never `req.fresh`, Express's HTTP cache getter). Refusals
// answer 401/403 `{ok:false, reason, detail, maxAge?}` unless `optional`. For plain `node:http` or any other
// framework, call the core gate (`@open-oc/kit/fresh`) and act on its decision.
// Typed structurally, so it needs neither @types/node nor @types/express.
import { type NodeRequestLike, type NodeResponseLike, sendRefusal } from "../consumer/node";
import { nextState } from "../consumer/state";
import { refusal } from "./decision";
import {
  requireFresh as createFresh,
  requireStepUp as createStepUp,
  type FreshGate,
  type FreshGateOptions,
} from "./gate";

export type { NodeRequestLike, NodeResponseLike, OcState } from "../consumer/node";

export type NodeFreshOptions = FreshGateOptions & {
  /** Never refuse: the route runs with `req.oc.freshness` set either way. */
  optional?: boolean;
};

type Middleware = (req: NodeRequestLike, res: NodeResponseLike, next: (err?: unknown) => void) => void;

function middleware(gate: FreshGate, optional: boolean): Middleware {
  return (req, res, next) => {
    gate(req)
      .then((decision) => {
        req.oc = nextState(req.oc, { session: decision.session, freshness: decision });
        if (decision.ok || optional) return next();
        sendRefusal(res, refusal(decision));
      })
      // A decision that cannot be applied (a closed response) is the app's error: passed on, never a request left
      // unanswered.
      .catch(next);
  };
}

/** `app.post("/account/delete", requireFresh({ authOrigin, maxAge: 600 }), handler)`; or pass a core gate. */
export function requireFresh(options: NodeFreshOptions, gate: FreshGate = createFresh(options)): Middleware {
  return middleware(gate, options.optional ?? false);
}

/** `app.use("/payouts", requireStepUp({ authOrigin, maxAge: 300 }))`: a hardware key within maxAge seconds. */
export function requireStepUp(options: NodeFreshOptions, gate: FreshGate = createStepUp(options)): Middleware {
  return middleware(gate, options.optional ?? false);
}
