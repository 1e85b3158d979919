// The flat fields the fleet stores beside each envelope's bytes (service-spec "Fleet envelopes": id, swearer,
// expires_at, the outcome value; the rest are the envelope's own names, for listing and filtering).
import type { OutcomeValue, ParsedAbandonment, ParsedOutcome, ParsedPledge } from "./types";

export interface PledgeFields {
  id: string;
  swearer: string;
  /** The signer of an agent-delegated pledge, else null. */
  agent_address: string | null;
  via_delegation: string | null;
  proposition: string;
  mechanism: string;
  query: string;
  /** resolves_at.time, or null when the pledge resolves at a block. */
  resolves_at: string | null;
  resolves_at_block: number | null;
  expires_at: string;
  bond_attestation_id: string;
  bond_min_sats: number;
  bond_min_days: number;
  counterparty: string | null;
  dispute_mechanism: string | null;
  sworn_at: string;
}

export interface OutcomeFields {
  id: string;
  pledge_id: string;
  outcome: OutcomeValue;
  resolved_at: string;
  /** An address, or `deterministic`. */
  resolved_by: string;
  mechanism: string;
  dispute_window_ends_at: string;
}

export interface AbandonmentFields {
  id: string;
  pledge_id: string;
  abandoned_at: string;
  reason: string;
  signer_address: string;
}

export function flatFields(parsed: ParsedPledge): PledgeFields;
export function flatFields(parsed: ParsedOutcome): OutcomeFields;
export function flatFields(parsed: ParsedAbandonment): AbandonmentFields;
export function flatFields(
  parsed: ParsedPledge | ParsedOutcome | ParsedAbandonment,
): PledgeFields | OutcomeFields | AbandonmentFields {
  switch (parsed.kind) {
    case "pledge": {
      const p = parsed.envelope;
      return {
        id: parsed.id,
        swearer: p.swearer.address,
        agent_address: p.agent_address ?? null,
        via_delegation: p.via_delegation ?? null,
        proposition: p.proposition,
        mechanism: p.resolution.mechanism,
        query: p.resolution.query,
        resolves_at: "time" in p.resolves_at ? p.resolves_at.time : null,
        resolves_at_block: "block" in p.resolves_at ? p.resolves_at.block : null,
        expires_at: p.expires_at,
        bond_attestation_id: p.bond.attestation_id,
        bond_min_sats: p.bond.min_sats,
        bond_min_days: p.bond.min_days,
        counterparty: p.counterparty,
        dispute_mechanism: p.dispute.mechanism,
        sworn_at: p.sworn_at,
      };
    }
    case "pledge-outcome": {
      const o = parsed.envelope;
      return {
        id: parsed.id,
        pledge_id: o.pledge_id,
        outcome: o.outcome,
        resolved_at: o.resolved_at,
        resolved_by: o.resolved_by,
        mechanism: o.evidence.mechanism,
        dispute_window_ends_at: o.dispute_window_ends_at,
      };
    }
    case "pledge-abandonment": {
      const a = parsed.envelope;
      return {
        id: parsed.id,
        pledge_id: a.pledge_id,
        abandoned_at: a.abandoned_at,
        reason: a.reason,
        signer_address: a.sig.pubkey,
      };
    }
  }
}
