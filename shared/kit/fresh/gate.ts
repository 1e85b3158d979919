// requireFresh and requireStepUp, the core every adapter uses: verify the request's session locally (the consumer
// verifier: JWKS cached, no call per request) and decide whether its sudo_at / step_up_at stamps are fresh enough
// (./decision). No call to the auth host: the stamps are signed claims of the token. Runs in Workers, Node, Deno.
import { createSessionVerifier, type HeaderSource, type SessionVerifier } from "../consumer/session-verifier";
import { decideFresh, type FreshDecision, type FreshPolicy, freshPolicy } from "./decision";

/** Where the session comes from: the auth host's origin (its JWKS is read), or a verifier shared with others. */
export type FreshSessionSource =
  | { authOrigin: string; verifier?: SessionVerifier }
  | { authOrigin?: string; verifier: SessionVerifier };

export interface FreshClockOptions {
  /** For the JWKS read, when no verifier is given. */
  fetch?: typeof fetch;
  /** Clock in epoch milliseconds, for the freshness windows (and the verifier made here); default Date.now. */
  now?: () => number;
}

export type FreshGateOptions = FreshSessionSource & FreshPolicy & FreshClockOptions;

export type StepUpGateOptions = FreshSessionSource &
  FreshClockOptions & {
    /** `step_up_at` at most this many seconds old; default 300, the spec's typical window. */
    maxAge?: number;
  };

/** What the gate reads of a request: a Fetch `Request`, Node's `IncomingMessage`, an Express request, … */
export interface RequestLike {
  headers: HeaderSource;
}

export type FreshGate = (request: RequestLike) => Promise<FreshDecision>;

/** The window of `requireStepUp` when none is given (oc-wire-formats §6.10: "typical 300 s"). */
export const DEFAULT_STEP_UP_MAX_AGE = 300;

function sessionVerifier(name: string, options: FreshSessionSource & FreshClockOptions): SessionVerifier {
  if (options.verifier) return options.verifier;
  if (!options.authOrigin) throw new TypeError(`${name}: give authOrigin or a verifier`);
  return createSessionVerifier({
    jwksUrl: new URL("/.well-known/jwks.json", options.authOrigin),
    issuer: new URL(options.authOrigin).origin,
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.now && { now: options.now }),
  });
}

function gate(name: string, options: FreshSessionSource & FreshClockOptions, policy: FreshPolicy): FreshGate {
  const checked = freshPolicy(name, policy);
  const verifier = sessionVerifier(name, options);
  const now = options.now ?? Date.now;
  return async (request) => decideFresh(await verifier.verifyRequest(request.headers), checked, now());
}

/**
 * `const decide = requireFresh({ authOrigin, sudo: 600 }); const decision = await decide(request);`. Give `sudo`,
 * `stepUp` or both (seconds); the request passes when every one given is fresh.
 */
export function requireFresh(options: FreshGateOptions): FreshGate {
  return gate("requireFresh", options, { sudo: options.sudo, stepUp: options.stepUp });
}

/** `requireFresh({ …, stepUp: maxAge })`: a hardware-key assertion within `maxAge` seconds (default 300). */
export function requireStepUp(options: StepUpGateOptions): FreshGate {
  return gate("requireStepUp", options, { stepUp: options.maxAge ?? DEFAULT_STEP_UP_MAX_AGE });
}
