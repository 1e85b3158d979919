// requireStake for Node: Express/Connect middleware `(req, res, next)` on the core gate; sets `req.oc.stake` (the
// decision) and `req.oc.session`. Refusals answer 401/403/503 `{ok:false, reason, detail}` unless `optional`. For
// plain `node:http` or any other framework, call the core gate (`@open-oc/kit/stake`) and act on its decision.
// Typed structurally, so it needs neither @types/node nor @types/express.
import { type NodeRequestLike, type NodeResponseLike, sendRefusal } from "../consumer/node";
import { nextState } from "../consumer/state";
import { refusal } from "./decision";
import { requireStake as createGate, type StakeGate, type StakeGateOptions } from "./gate";

export type { NodeRequestLike, NodeResponseLike, OcState } from "../consumer/node";

export type NodeStakeOptions = StakeGateOptions & {
  /** Never refuse: the route runs with `req.oc.stake` set either way. */
  optional?: boolean;
};

/** `app.use("/members", requireStake({ authOrigin, minSats: 100_000, minDays: 30 }))`; or pass a core gate. */
export function requireStake(options: NodeStakeOptions, gate: StakeGate = createGate(options)) {
  return (req: NodeRequestLike, res: NodeResponseLike, next: (err?: unknown) => void): void => {
    gate(req)
      .then((decision) => {
        req.oc = nextState(req.oc, { session: decision.session, stake: decision });
        if (decision.ok || options.optional) return next();
        sendRefusal(res, refusal(decision));
      })
      // A decision that cannot be applied (a closed response) is the app's error: passed on, never a request left
      // unanswered.
      .catch(next);
  };
}
