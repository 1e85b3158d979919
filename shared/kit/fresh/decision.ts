// The freshness gates' decision, pure: from the verified session, the claim a gate reads (sudo_at for requireFresh,
// step_up_at for requireStepUp), its window and the time to "let in" or a reason, and from a refusal to its HTTP
// answer. The rule itself is isFresh's (the spec's and auth-core's `0 ≤ now − value < window`), so the kit's
// helpers and this gate cannot disagree. No I/O: gate.ts does that.
import { JSON_NO_STORE, type Refusal, sessionDetail, sessionRefusal } from "../consumer/gate";
import { isFresh, type SessionClaims, type SessionFailure, type VerifiedSession } from "../consumer/session-verifier";

/** Why the gate refused; stable strings to switch on. */
export type FreshFailure =
  | SessionFailure // no oc_session (or bearer) token that verifies, and why: "session_missing", "session_expired", …
  | "sudo_required" // sudo_at is null, absent, stale or in the future: re-authenticate on the auth host
  | "step_up_required"; // step_up_at is null, absent, stale or in the future: assert a hardware key (WebAuthn)

/** Which stamp a gate reads, and the window it must be inside, in seconds. */
export interface FreshPolicy {
  /** `sudo_at` (requireFresh: the last sign-in or re-authentication) or `step_up_at` (requireStepUp: a hardware key). */
  claim: "sudo_at" | "step_up_at";
  /** The stamp at most this many seconds old. */
  maxAge: number;
}

export type FreshDecision =
  | { ok: true; session: SessionClaims }
  | { ok: false; reason: SessionFailure; detail: string; session?: undefined }
  | {
      ok: false;
      reason: "sudo_required" | "step_up_required";
      detail: string;
      /** The window that was not met, in seconds: what the page tells the person ("within 10 minutes"). */
      maxAge: number;
      session: SessionClaims;
    };

/** The window as given, checked once when the gate is made (a typo must not become "no requirement"). */
export function freshMaxAge(name: string, maxAge: number): number {
  if (!Number.isSafeInteger(maxAge) || maxAge <= 0) throw new TypeError(`${name}: maxAge must be a positive integer`);
  return maxAge;
}

/** Why a stamp is not fresh, in words that name the window. */
function staleDetail(claim: FreshPolicy["claim"], at: number | null | undefined, window: number, now: number) {
  const need = `${claim} must be within the last ${window} s`;
  if (at === null || at === undefined) return `${need} (it is ${at === null ? "null" : "absent"})`;
  if (!Number.isFinite(at)) return `${need} (it is not a time)`;
  const age = Math.floor(now / 1000) - at;
  return age < 0 ? `${need} (it is ${-age} s in the future)` : `${need} (it is ${age} s old)`;
}

/** Let in when the policy's stamp is inside its window at `now` (epoch ms). */
export function decideFresh(verified: VerifiedSession, policy: FreshPolicy, now: number): FreshDecision {
  if (!verified.ok) return { ok: false, reason: verified.reason, detail: sessionDetail(verified.reason) };
  const session = verified.claims;
  const at = session[policy.claim];
  if (isFresh(at, policy.maxAge, now)) return { ok: true, session };
  return {
    ok: false,
    reason: policy.claim === "sudo_at" ? "sudo_required" : "step_up_required",
    detail: staleDetail(policy.claim, at, policy.maxAge, now),
    maxAge: policy.maxAge,
    session,
  };
}

/** The HTTP answer to a refusal, for adapters that respond themselves: `{ok:false, reason, detail, maxAge?}`. */
export function refusal(decision: FreshDecision & { ok: false }): Refusal<FreshFailure> {
  switch (decision.reason) {
    case "sudo_required":
    case "step_up_required": {
      const { reason, detail, maxAge } = decision;
      return { status: 403, headers: { ...JSON_NO_STORE }, body: { ok: false, reason, detail, maxAge } };
    }
    default:
      return sessionRefusal(decision.reason);
  }
}
