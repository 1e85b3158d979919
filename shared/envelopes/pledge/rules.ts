// Registration rules that need the stored pledge (PLG SPEC §4.3–4.5, §5.3; service-spec Pledge table): who may
// resolve or abandon it, in which status, and when. Pure: the route passes the pledge, its status and `now`.
import { DETERMINISTIC } from "./canonical";
import { parseIsoSeconds } from "./grammar";
import { namedOracle } from "./resolution";
import { isDeterministicOutcomeAllowed } from "./signature";
import { nextPledgeStatus, type PledgeStatus } from "./state";
import type { OutcomeEnvelope, ParsedAbandonment, ParsedOutcome, PledgeEnvelope, PledgeRefusal } from "./types";

export type RuleCheck = { ok: true; status: PledgeStatus } | PledgeRefusal;

const expiresMs = (pledge: Pick<PledgeEnvelope, "expires_at">): number =>
  parseIsoSeconds(pledge.expires_at) ?? Number.POSITIVE_INFINITY;

/** The reconciler's test: a pending pledge at or past expires_at gets the expired_unresolved outcome. */
export function isExpiryDue(pledge: Pick<PledgeEnvelope, "expires_at">, status: PledgeStatus, now: number): boolean {
  return status === "pending" && now >= expiresMs(pledge);
}

/**
 * May `resolver` sign this outcome value? counterparty_signs: the counterparty, and the swearer for `broken`
 * only (SPEC §4.5 lets both publish, but the swearer's own `kept` would be self-proof); a named_oracle dispute:
 * its oracle. Unsigned deterministic outcomes: as isDeterministicOutcomeAllowed says.
 */
export function isResolverAuthorized(pledge: PledgeEnvelope, outcome: OutcomeEnvelope): boolean {
  if (outcome.resolved_by === DETERMINISTIC) return isDeterministicOutcomeAllowed(outcome);
  if (outcome.resolved_by === namedOracle(pledge.dispute)) return true;
  if (pledge.resolution.mechanism !== "counterparty_signs") return false;
  if (outcome.resolved_by === pledge.counterparty) return true;
  return outcome.resolved_by === pledge.swearer.address && outcome.outcome === "broken";
}

/** Checks an outcome (parsed, signature verified) against the pledge it cites; gives the status it leads to. */
export function checkOutcome(
  outcome: ParsedOutcome,
  pledge: PledgeEnvelope,
  status: PledgeStatus,
  now: number,
): RuleCheck {
  const o = outcome.envelope;
  if (o.pledge_id !== pledge.id) {
    return { ok: false, reason: "invalid_body", code: "E_OUTCOME_MALFORMED", detail: "outcome cites another pledge" };
  }
  if (o.evidence.mechanism !== pledge.resolution.mechanism) {
    const detail = `evidence.mechanism must be the pledge's ${pledge.resolution.mechanism}`;
    return { ok: false, reason: "invalid_body", code: "E_OUTCOME_MALFORMED", detail };
  }
  if (!isResolverAuthorized(pledge, o)) {
    const detail = `${o.resolved_by} may not resolve this pledge as ${o.outcome}`;
    return { ok: false, reason: "resolver_unauthorized", code: "E_OUTCOME_RESOLVER_UNAUTHORIZED", detail };
  }
  const next = nextPledgeStatus(status, { type: "outcome", outcome: o.outcome });
  if (!next.ok) return next;
  const expires = expiresMs(pledge);
  const resolvedAt = parseIsoSeconds(o.resolved_at) ?? Number.NaN;
  if (o.outcome === "expired_unresolved") {
    if (now < expires || resolvedAt < expires) {
      return {
        ok: false,
        reason: "pledge_not_expired",
        code: null,
        detail: `the pledge expires at ${pledge.expires_at}`,
      };
    }
  } else if (now >= expires || resolvedAt >= expires) {
    const detail = `the pledge expired at ${pledge.expires_at}; only expired_unresolved resolves it now`;
    return { ok: false, reason: "pledge_expired", code: null, detail };
  }
  return next;
}

/** Checks an abandonment (parsed, signature verified) against its pledge: the swearer's own, while pending. */
export function checkAbandonment(
  abandonment: ParsedAbandonment,
  pledge: PledgeEnvelope,
  status: PledgeStatus,
  now: number,
): RuleCheck {
  const a = abandonment.envelope;
  if (a.pledge_id !== pledge.id) {
    return {
      ok: false,
      reason: "invalid_body",
      code: "E_ABANDONMENT_MALFORMED",
      detail: "abandonment cites another pledge",
    };
  }
  // Principal only: an agent that swore the pledge may not retract it (SPEC §5.3, §7.3).
  if (a.sig.pubkey !== pledge.swearer.address) {
    const detail = "only the pledge's swearer may abandon it";
    return { ok: false, reason: "signer_must_be_swearer", code: "E_ABANDONMENT_BAD_SIG", detail };
  }
  if ((parseIsoSeconds(a.abandoned_at) ?? 0) < (parseIsoSeconds(pledge.sworn_at) ?? 0)) {
    return {
      ok: false,
      reason: "invalid_body",
      code: "E_ABANDONMENT_MALFORMED",
      detail: "abandoned_at precedes sworn_at",
    };
  }
  const next = nextPledgeStatus(status, { type: "abandonment" });
  if (!next.ok) return next;
  if (now >= expiresMs(pledge)) {
    return { ok: false, reason: "pledge_expired", code: null, detail: `the pledge expired at ${pledge.expires_at}` };
  }
  return next;
}
