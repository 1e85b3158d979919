// The stake gate's decision, pure: from the verified session and the verification API's `/api/check` answer to
// "let in" or a reason, and from a refusal to its HTTP answer. No clock, no I/O: gate.ts does those.
import { JSON_NO_STORE, type Refusal, sessionDetail, sessionRefusal } from "../consumer/gate";
import type { SessionClaims, SessionFailure, VerifiedSession } from "../consumer/session-verifier";

/** Why the gate refused; stable strings to switch on. */
export type StakeFailure =
  | SessionFailure // no oc_session (or bearer) token that verifies, and why: "session_missing", "session_expired", …
  | "no_bitcoin_identity" // the account has no Bitcoin address (signed in by email or a provider)
  | "stake_insufficient" // the check ran and the address does not hold min_sats for min_days (or has no attestation)
  | "check_unavailable"; // the verification API could not answer (down, 5xx, rate limited, unreadable): fail closed

export interface StakePolicy {
  minSats: number;
  minDays: number;
}

/** What the verification API said about the address (service-spec "Check result"). */
export interface StakeFacts {
  address: string;
  sats: number;
  days: number;
  /** The API's own verdict for the thresholds asked. */
  ok: boolean;
  /** Why not ok: the API's reasons (below_min_sats, below_min_days, bond_zero, not_found, …). */
  reasons: string[];
  attestationId?: string;
}

export type StakeDecision =
  | { ok: true; session: SessionClaims; stake: StakeFacts }
  | { ok: false; reason: StakeFailure; detail: string; session?: SessionClaims; stake?: StakeFacts };

/** An `/api/check` answer read: a verdict (200 or the spec's 404), or no verdict. */
export type CheckAnswer = { kind: "verdict"; facts: StakeFacts } | { kind: "unavailable"; detail: string };

/** The `/api/check` request for an address at a policy (thresholds are the API's integer query parameters). */
export function checkPath(address: string, policy: StakePolicy): string {
  const query = new URLSearchParams({
    addr: address,
    min_sats: String(policy.minSats),
    min_days: String(policy.minDays),
  });
  return `/api/check?${query}`;
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** Reads an `/api/check` answer (status and parsed body; undefined when it was not JSON). */
export function readCheckAnswer(address: string, status: number, body: unknown): CheckAnswer {
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const reasons = Array.isArray(fields.reasons) ? fields.reasons.filter((r) => typeof r === "string") : [];
  // The spec's 404: no verified attestation names the address. A verdict (nothing is staked), not an outage.
  if (status === 404 && reasons.includes("not_found")) {
    return { kind: "verdict", facts: { address, sats: 0, days: 0, ok: false, reasons } };
  }
  if (status !== 200) {
    const reason = typeof fields.reason === "string" ? ` ${fields.reason}` : "";
    return { kind: "unavailable", detail: `check answered ${status}${reason}` };
  }
  if (typeof fields.ok !== "boolean" || !isCount(fields.sats) || !isCount(fields.days)) {
    return { kind: "unavailable", detail: "check answered 200 without ok, sats and days" };
  }
  return {
    kind: "verdict",
    facts: {
      address,
      sats: fields.sats,
      days: fields.days,
      ok: fields.ok,
      reasons,
      ...(typeof fields.attestation_id === "string" && { attestationId: fields.attestation_id }),
    },
  };
}

/** The session's Bitcoin address, or the refusal that ends the decision before any check. */
export function sessionAddress(
  session: VerifiedSession,
): { ok: true; session: SessionClaims; address: string } | (StakeDecision & { ok: false }) {
  if (!session.ok) return { ok: false, reason: session.reason, detail: sessionDetail(session.reason) };
  const address = session.claims.primary_btc;
  if (!address) {
    return {
      ok: false,
      reason: "no_bitcoin_identity",
      detail: "the account has no Bitcoin address",
      session: session.claims,
    };
  }
  return { ok: true, session: session.claims, address };
}

/** Let in only on the API's ok for these thresholds, with the metrics agreeing (fail closed on a contradiction). */
export function decide(session: SessionClaims, answer: CheckAnswer, policy: StakePolicy): StakeDecision {
  if (answer.kind === "unavailable") return { ok: false, reason: "check_unavailable", detail: answer.detail, session };
  const stake = answer.facts;
  if (stake.ok && stake.sats >= policy.minSats && stake.days >= policy.minDays) return { ok: true, session, stake };
  const why = stake.reasons.length > 0 ? stake.reasons.join(", ") : `${stake.sats} sats for ${stake.days} days`;
  return { ok: false, reason: "stake_insufficient", detail: why, session, stake };
}

/** The HTTP answer to a refusal, for adapters that respond themselves. */
export function refusal(decision: StakeDecision & { ok: false }): Refusal<StakeFailure> {
  const body = { ok: false as const, reason: decision.reason, detail: decision.detail };
  switch (decision.reason) {
    case "no_bitcoin_identity":
    case "stake_insufficient":
      return { status: 403, headers: { ...JSON_NO_STORE }, body };
    case "check_unavailable":
      return { status: 503, headers: { ...JSON_NO_STORE, "retry-after": "5" }, body };
    default:
      return sessionRefusal(decision.reason);
  }
}
