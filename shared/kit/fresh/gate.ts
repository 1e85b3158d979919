// requireFresh and requireStepUp, the core every adapter uses: verify the request's session locally (the consumer
// verifier: JWKS cached, no call per request) and decide whether its sudo_at (requireFresh) or step_up_at
// (requireStepUp) stamp is at most `maxAge` seconds old (./decision). No call to the auth host: the stamps are
// signed claims of the token. Runs in Workers, Node, Deno.
import type { HeaderSource } from "../consumer/session-verifier";
import { type SessionSourceOptions, verifierFor } from "../consumer/source";
import { decideFresh, type FreshDecision, type FreshPolicy, freshMaxAge } from "./decision";

/** `{ authOrigin }` or `{ verifier }` (as every gate), and the window. */
export type FreshGateOptions = SessionSourceOptions & {
  /** The stamp at most this many seconds old (a positive integer); default 300, the spec's typical window. */
  maxAge?: number;
};

/** What the gate reads of a request: a Fetch `Request`, Node's `IncomingMessage`, an Express request, … */
export interface RequestLike {
  headers: HeaderSource;
}

export type FreshGate = (request: RequestLike) => Promise<FreshDecision>;

/** The window when none is given (oc-wire-formats §6.10: "typical 300 s"). */
export const DEFAULT_MAX_AGE = 300;

function gate(name: string, options: FreshGateOptions, claim: FreshPolicy["claim"]): FreshGate {
  const policy = { claim, maxAge: freshMaxAge(name, options.maxAge ?? DEFAULT_MAX_AGE) };
  const verifier = verifierFor(name, options);
  const now = options.now ?? Date.now;
  return async (request) => decideFresh(await verifier.verifyRequest(request.headers), policy, now());
}

/**
 * `const decide = requireFresh({ authOrigin, maxAge: 600 }); const decision = await decide(request);`: a sign-in or
 * re-authentication (`sudo_at`) within maxAge seconds, else `sudo_required`.
 */
export function requireFresh(options: FreshGateOptions): FreshGate {
  return gate("requireFresh", options, "sudo_at");
}

/** `requireStepUp({ authOrigin, maxAge: 300 })`: a hardware-key assertion (`step_up_at`) within maxAge seconds. */
export function requireStepUp(options: FreshGateOptions): FreshGate {
  return gate("requireStepUp", options, "step_up_at");
}
