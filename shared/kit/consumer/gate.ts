// The session middlewares' one core: a request's headers in, the decision out (its claims, or why there are none
// and the refusal to answer). Every gate of the kit answers a missing session with sessionRefusal, so a 401 reads
// the same from ocSession, requireStake and requireFresh: `{ok:false, reason:"session_expired", detail}`.
import type { HeaderSource, SessionClaims, SessionFailure, SessionVerifier } from "./session-verifier";

/** An HTTP refusal as every gate renders it: no-store (it depends on the cookie and the clock). */
export interface Refusal<Reason extends string = string> {
  status: 401 | 403 | 503;
  headers: Record<string, string>;
  body: { ok: false; reason: Reason; detail: string; maxAge?: number };
}

/** What each session reason tells the person or the developer reading the body. */
const SESSION_DETAIL: Record<SessionFailure, string> = {
  session_missing: "no oc_session cookie and no bearer token: sign in",
  session_malformed: "the session token is not a readable JWT",
  session_alg_not_allowed: "the session token's alg is not EdDSA",
  session_typ_not_allowed: "the session token's typ is not JWT",
  session_forbidden_header: "the session token names its own key (jku, x5u, x5c or jwk)",
  session_unknown_key: "the session token's kid is not in the auth host's JWKS",
  session_keys_unavailable: "the auth host's JWKS could not be read",
  session_bad_signature: "the session token's signature does not verify",
  session_expired: "the session has expired: sign in again",
  session_bad_claims: "the session token's issuer or claims are not the auth host's",
};

/** The words for a session reason, as every refusal's `detail` gives them. */
export const sessionDetail = (reason: SessionFailure): string => SESSION_DETAIL[reason];

export const JSON_NO_STORE = { "content-type": "application/json", "cache-control": "no-store" } as const;

/** The answer to a request that needs a session and has none: 401 with the reason (503 when the keys are unread). */
export function sessionRefusal(reason: SessionFailure): Refusal<SessionFailure> {
  const body = { ok: false as const, reason, detail: SESSION_DETAIL[reason] };
  if (reason === "session_keys_unavailable") {
    return { status: 503, headers: { ...JSON_NO_STORE, "retry-after": "5" }, body };
  }
  return { status: 401, headers: { ...JSON_NO_STORE }, body };
}

export type SessionDecision =
  | { ok: true; session: SessionClaims }
  | { ok: false; reason: SessionFailure; detail: string; session?: undefined };

/** Verifies the request's session: its claims, or the reason and the words for it. */
export async function decideSession(verifier: SessionVerifier, headers: HeaderSource): Promise<SessionDecision> {
  const result = await verifier.verifyRequest(headers);
  if (result.ok) return { ok: true, session: result.claims };
  return { ok: false, reason: result.reason, detail: SESSION_DETAIL[result.reason] };
}
