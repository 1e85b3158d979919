// The session middlewares' one core: a request's headers in, the decision out (its claims, why it is anonymous, or
// the 401 to answer). The Hono and Node adapters (hono.ts, node.ts) only read headers and place the decision.
import {
  createSessionVerifier,
  type HeaderSource,
  type SessionClaims,
  type SessionFailure,
  type SessionVerifier,
  type SessionVerifierOptions,
} from "./session-verifier";

/** The answer to a request that needs a session and has none: 401, not cached. */
export const NOT_AUTHENTICATED = {
  status: 401,
  headers: { "content-type": "application/json", "cache-control": "no-store" },
  body: JSON.stringify({ ok: false, reason: "not_authenticated" }),
} as const;

export interface SessionDecision {
  /** The verified claims; undefined on an anonymous request. */
  session: SessionClaims | undefined;
  /** Why the request is anonymous, e.g. "no_token", "expired". */
  failure: SessionFailure | undefined;
  /** Set when the request must be refused (a session is required and there is none). */
  refusal?: typeof NOT_AUTHENTICATED;
}

/** A verifier as given, or one made from options (pass a verifier to share its JWKS cache between middlewares). */
export const asVerifier = (verifier: SessionVerifier | SessionVerifierOptions): SessionVerifier =>
  "verify" in verifier ? verifier : createSessionVerifier(verifier);

export async function decideSession(
  verifier: SessionVerifier,
  headers: HeaderSource,
  optional: boolean,
): Promise<SessionDecision> {
  const result = await verifier.verifyRequest(headers);
  if (result.ok) return { session: result.claims, failure: undefined };
  return { session: undefined, failure: result.reason, ...(optional ? {} : { refusal: NOT_AUTHENTICATED }) };
}
