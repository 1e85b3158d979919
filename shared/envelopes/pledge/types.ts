// OC Pledge v1 (oc-wire-formats §4): the three envelope shapes, the protocol's error codes, and the parse results
// every module of shared/envelopes/pledge hands to the fleet routes.
import type { Reason } from "../../errors";

export const MECHANISMS = [
  "chain_state",
  "counterparty_signs",
  "nostr_event_exists",
  "stamp_published",
  "http_get_hash",
  "dns_record",
  "vote_resolves",
] as const;
export type Mechanism = (typeof MECHANISMS)[number];

export const OUTCOMES = ["kept", "broken", "disputed", "expired_unresolved"] as const;
export type OutcomeValue = (typeof OUTCOMES)[number];

export type DisputeMechanism = "vote_resolves" | "named_oracle";

/** PLG SPEC §10, as pledge-core names them. */
export type PledgeCode =
  | "E_UNSUPPORTED_VERSION"
  | "E_PLEDGE_MALFORMED"
  | "E_PLEDGE_BAD_ID"
  | "E_PLEDGE_BAD_SIG"
  | "E_RESOLUTION_UNKNOWN"
  | "E_RESOLUTION_NONDETERMINISTIC"
  | "E_BOND_NOT_FOUND"
  | "E_BOND_ADDRESS_MISMATCH"
  | "E_BOND_SPENT"
  | "E_BOND_INSUFFICIENT_SATS"
  | "E_BOND_INSUFFICIENT_DAYS"
  | "E_OUTCOME_MALFORMED"
  | "E_OUTCOME_BAD_ID"
  | "E_OUTCOME_BAD_SIG"
  | "E_OUTCOME_EVIDENCE_MISMATCH"
  | "E_OUTCOME_RESOLVER_UNAUTHORIZED"
  | "E_ABANDONMENT_MALFORMED"
  | "E_ABANDONMENT_BAD_ID"
  | "E_ABANDONMENT_BAD_SIG"
  | "E_DELEGATION_NOT_FOUND"
  | "E_DELEGATION_SCOPE_VIOLATED"
  | "E_DELEGATION_EXPIRED";

/** Fleet reasons; the pledge ones beyond service-spec's table (pledge_not_pending, …) are in shared/errors.ts. */
export type PledgeReason = Reason;

/** A refusal: the fleet reason to answer with, the protocol code (null where SPEC §10 has none), `detail` text. */
export interface PledgeRefusal<R extends PledgeReason = PledgeReason> {
  ok: false;
  reason: R;
  code: PledgeCode | null;
  detail: string;
}

export interface Bip322Sig {
  alg: "bip322";
  pubkey: string;
  value: string;
}

/** The canonical inputs of a pledge (the twenty message lines), as the vectors' `inputs` carry them. */
export interface PledgeInput {
  swearer: string;
  proposition: string;
  resolution: { mechanism: string; query: string };
  resolves_at: { time: string } | { block: number };
  expires_at: string;
  bond: { attestation_id: string; min_sats: number; min_days: number };
  counterparty: string | null;
  dispute: { mechanism: string | null; params: string | null };
  remediation: string;
  sworn_at: string;
  nonce: string;
}

export interface PledgeEnvelope extends Omit<PledgeInput, "swearer"> {
  v: 1;
  kind: "pledge";
  id: string;
  swearer: { address: string; alg: "bip322" };
  via_delegation?: string;
  agent_address?: string;
  sig: Bip322Sig;
}

export interface OutcomeInput {
  pledge_id: string;
  outcome: OutcomeValue;
  resolved_at: string;
  /** A Bitcoin address, or the literal `deterministic`. */
  resolved_by: string;
  evidence: { mechanism: string; result: string; witness: string };
  dispute_window_ends_at: string;
}

export interface OutcomeEnvelope extends OutcomeInput {
  v: 1;
  kind: "pledge-outcome";
  id: string;
  sig: Bip322Sig | null;
}

export interface AbandonmentInput {
  pledge_id: string;
  abandoned_at: string;
  reason: string;
}

export interface AbandonmentEnvelope extends AbandonmentInput {
  v: 1;
  kind: "pledge-abandonment";
  id: string;
  sig: Bip322Sig;
}

interface Parsed<K extends string, E> {
  ok: true;
  kind: K;
  /** The received object, checked; unknown top-level fields are kept (PLG SPEC §3.7: preserve on relay). */
  envelope: E;
  /** The canonical message the id is the sha256 of (no trailing LF). */
  message: string;
  id: string;
  /** RFC 8785 text of the envelope; its canonical bytes are this plus one LF. */
  canonicalJson: string;
}

export type ParsedPledge = Parsed<"pledge", PledgeEnvelope>;
export type ParsedOutcome = Parsed<"pledge-outcome", OutcomeEnvelope>;
export type ParsedAbandonment = Parsed<"pledge-abandonment", AbandonmentEnvelope>;
export type ParsedPledgeEnvelope = ParsedPledge | ParsedOutcome | ParsedAbandonment;

export type ParseFailure = PledgeRefusal<"invalid_body" | "canonicalization_failed" | "id_mismatch"> & {
  code: PledgeCode;
};
export type ParseResult<P extends ParsedPledgeEnvelope> = P | ParseFailure;
