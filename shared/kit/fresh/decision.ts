// The freshness gate's decision, pure: from the verified session, the gate's windows and the time to "let in" or one
// of three reasons, and from a refusal to its HTTP answer. The rule itself is isFresh's (the spec's and auth-core's
// `0 ≤ now − value < window`), so the kit's helpers and this gate cannot disagree. No I/O: gate.ts does that.
import { isFresh, type SessionClaims, type SessionFailure, type VerifiedSession } from "../consumer/session-verifier";

/** Why the gate refused; stable strings to switch on. */
export type FreshFailure =
  | "no_session" // no oc_session (or bearer) token that verifies: sign in
  | "sudo_required" // sudo_at is null, absent, stale or in the future: re-authenticate on the auth host
  | "step_up_required"; // step_up_at is null, absent, stale or in the future: assert a hardware key (WebAuthn)

/** The windows a route asks for, in seconds; each one given must hold. */
export interface FreshPolicy {
  /** `sudo_at` (the last sign-in or re-authentication in this browser) at most this many seconds old. */
  sudo?: number;
  /** `step_up_at` (the last hardware-key assertion) at most this many seconds old. */
  stepUp?: number;
}

export type FreshDecision =
  | { ok: true; session: SessionClaims }
  | { ok: false; reason: "no_session"; detail: SessionFailure }
  | {
      ok: false;
      reason: "sudo_required" | "step_up_required";
      detail: string;
      /** The window that was not met, in seconds: what the page tells the person ("within 10 minutes"). */
      maxAge: number;
      session: SessionClaims;
    };

/** The policy as given, checked once when the gate is made (a typo must not become "no requirement"). */
export function freshPolicy(name: string, policy: FreshPolicy): FreshPolicy {
  const seconds = (field: keyof FreshPolicy) => {
    const value = policy[field];
    if (value === undefined) return undefined;
    if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${name}: ${field} must be a positive integer`);
    return value;
  };
  const checked = { sudo: seconds("sudo"), stepUp: seconds("stepUp") };
  if (checked.sudo === undefined && checked.stepUp === undefined) {
    throw new TypeError(`${name}: give sudo or stepUp (seconds)`);
  }
  return checked;
}

/** Why a stamp is not fresh, in words that name the window. */
function staleDetail(claim: "sudo_at" | "step_up_at", at: number | null | undefined, window: number, now: number) {
  const need = `${claim} must be within the last ${window} s`;
  if (at === null || at === undefined) return `${need} (it is ${at === null ? "null" : "absent"})`;
  if (!Number.isFinite(at)) return `${need} (it is not a time)`;
  const age = Math.floor(now / 1000) - at;
  return age < 0 ? `${need} (it is ${-age} s in the future)` : `${need} (it is ${age} s old)`;
}

/**
 * Let in when every asked window holds at `now` (epoch ms). Sudo is checked first: with both stale the person is
 * sent to re-authenticate, then, on the retry, to the hardware key (the host asks sudo before a key is added).
 */
export function decideFresh(verified: VerifiedSession, policy: FreshPolicy, now: number): FreshDecision {
  if (!verified.ok) return { ok: false, reason: "no_session", detail: verified.reason };
  const session = verified.claims;
  if (policy.sudo !== undefined && !isFresh(session.sudo_at, policy.sudo, now)) {
    const detail = staleDetail("sudo_at", session.sudo_at, policy.sudo, now);
    return { ok: false, reason: "sudo_required", detail, maxAge: policy.sudo, session };
  }
  if (policy.stepUp !== undefined && !isFresh(session.step_up_at, policy.stepUp, now)) {
    const detail = staleDetail("step_up_at", session.step_up_at, policy.stepUp, now);
    return { ok: false, reason: "step_up_required", detail, maxAge: policy.stepUp, session };
  }
  return { ok: true, session };
}

export type FreshRefusalBody =
  | { ok: false; reason: "no_session"; detail: string }
  | { ok: false; reason: "sudo_required" | "step_up_required"; detail: string; max_age: number };

/** The HTTP answer to a refusal, for adapters that respond themselves. */
export function refusal(decision: FreshDecision & { ok: false }): {
  status: 401 | 403;
  headers: Record<string, string>;
  body: FreshRefusalBody;
} {
  // no-store: the answer depends on the cookie and on the clock, so no cache may keep it.
  const headers: Record<string, string> = { "content-type": "application/json", "cache-control": "no-store" };
  switch (decision.reason) {
    case "no_session":
      return { status: 401, headers, body: { ok: false, reason: decision.reason, detail: decision.detail } };
    case "sudo_required":
    case "step_up_required":
      return {
        status: 403,
        headers,
        body: { ok: false, reason: decision.reason, detail: decision.detail, max_age: decision.maxAge },
      };
  }
}
