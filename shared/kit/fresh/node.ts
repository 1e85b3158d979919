// requireFresh and requireStepUp for Node: Express/Connect middleware `(req, res, next)` on the core gate; sets
// `req.freshness` (the decision). Not `req.fresh`: Express defines that as a getter (its HTTP cache check, which
// `res.send` reads to answer 304), so assigning it throws. Refusals answer 401/403 `{ok:false, reason, detail,
// max_age?}` unless `optional`. For plain `node:http` or any other framework, call the core gate
// (`@open-oc/kit/fresh`) and act on its decision.
// Typed structurally, so it needs neither @types/node nor @types/express.
import type { HeaderSource } from "../consumer/session-verifier";
import { type FreshDecision, refusal } from "./decision";
import {
  requireFresh as createFresh,
  requireStepUp as createStepUp,
  type FreshGate,
  type FreshGateOptions,
  type StepUpGateOptions,
} from "./gate";

export interface FreshRequestLike {
  headers: HeaderSource;
  /** `| undefined` too: an app's own `freshness?: FreshDecision | undefined` (exactOptionalPropertyTypes) fits. */
  freshness?: FreshDecision | undefined;
}

export interface FreshResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

export interface NodeFreshOptions {
  optional?: boolean;
}

type Middleware = (req: FreshRequestLike, res: FreshResponseLike, next: (err?: unknown) => void) => void;

function middleware(gate: FreshGate, optional: boolean): Middleware {
  return (req, res, next) => {
    gate(req)
      .then((decision) => {
        req.freshness = decision;
        if (decision.ok || optional) return next();
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

/** `app.post("/account/delete", requireFresh({ authOrigin, sudo: 600 }), handler)`; or pass a core gate. */
export function requireFresh(
  options: FreshGateOptions & NodeFreshOptions,
  gate: FreshGate = createFresh(options),
): Middleware {
  return middleware(gate, options.optional ?? false);
}

/** `app.use("/payouts", requireStepUp({ authOrigin, maxAge: 300 }))`: a hardware key within maxAge seconds. */
export function requireStepUp(
  options: StepUpGateOptions & NodeFreshOptions,
  gate: FreshGate = createStepUp(options),
): Middleware {
  return middleware(gate, options.optional ?? false);
}
