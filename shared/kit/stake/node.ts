// requireStake for Node: Express/Connect middleware `(req, res, next)` on the core gate; sets `req.stake` (the
// decision). Refusals answer 401/403/503 `{ok:false, reason, detail}` unless `optional`. For plain `node:http` or
// any other framework, call the core gate (`@open-oc/kit/stake`) with the request and act on its decision.
// Typed structurally, so it needs neither @types/node nor @types/express.
import type { HeaderSource } from "../consumer/session-verifier";
import { refusal, type StakeDecision } from "./decision";
import { requireStake as createGate, type StakeGate, type StakeGateOptions } from "./gate";

export interface StakeRequestLike {
  headers: HeaderSource;
  /** `| undefined` too: an app's own `stake?: StakeDecision | undefined` (exactOptionalPropertyTypes) fits. */
  stake?: StakeDecision | undefined;
}

export interface StakeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

export interface NodeStakeOptions extends StakeGateOptions {
  optional?: boolean;
}

export function requireStake(options: NodeStakeOptions, gate: StakeGate = createGate(options)) {
  return (req: StakeRequestLike, res: StakeResponseLike, next: (err?: unknown) => void): void => {
    gate(req)
      .then((decision) => {
        req.stake = decision;
        if (decision.ok || options.optional) return next();
        const { status, headers, body } = refusal(decision);
        res.statusCode = status;
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
        res.end(JSON.stringify(body));
      })
      // A decision that cannot be applied (a framework that owns the property, a closed response) is the app's
      // error: passed on, never a request left unanswered.
      .catch(next);
  };
}
