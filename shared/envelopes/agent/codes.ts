// OC Agent error codes (oc-wire-formats §3.13–3.14) and the refusal every parser and rule returns: the project's
// stable `reason` (shared/errors.ts) with the OC code that fired beside it, so logs and tests can name both.
import type { Reason } from "../../errors";

export type OcErrorCode =
  | "E_UNSUPPORTED_VERSION"
  | "E_MALFORMED"
  | "E_BAD_ID"
  | "E_BAD_SIG"
  | "E_BAD_SCOPE_GRAMMAR"
  | "E_NOT_YET_VALID"
  | "E_EXPIRED"
  | "E_REVOKED"
  | "E_DELEGATION_MISMATCH"
  | "E_AGENT_MISMATCH"
  | "E_OUT_OF_WINDOW"
  | "E_SCOPE_DENIED"
  | "E_BAD_ACTION_STAMP"
  | "E_REVOKER_UNAUTHORIZED"
  | "E_SUBDELEGATION_DEPTH_EXCEEDED"
  | "E_SUBDELEGATION_PRINCIPAL_MISMATCH"
  | "E_SUBDELEGATION_EXPIRES_EXTENDED"
  | "E_SUBDELEGATION_SCOPE_ESCALATED"
  | "E_SCOPES_BOTH_PROVIDED"
  | "E_SCOPES_NEITHER_PROVIDED"
  | "E_SCOPES_UNREADABLE"
  | "E_BAD_LOCK_ENVELOPE"
  // Federation codes as the v20–v24 vectors spell them (agent-core's names are the aliases below).
  | "E_FEDERATION_BELOW_THRESHOLD"
  | "E_FEDERATION_DUPLICATE_GUARDIAN"
  | "E_FEDERATION_UNKNOWN_GUARDIAN"
  | "E_FEDERATION_DESCRIPTOR_MISMATCH"
  | "E_FEDERATION_THRESHOLD_MISMATCH";

/** agent-core's names for the same federation outcomes (§3.13 discrepancy: map 1:1). */
export const FEDERATION_CODE_ALIASES = {
  E_FEDERATION_BELOW_THRESHOLD: "E_THRESHOLD_NOT_MET",
  E_FEDERATION_DUPLICATE_GUARDIAN: "E_DUPLICATE_GUARDIAN",
  E_FEDERATION_UNKNOWN_GUARDIAN: "E_UNKNOWN_GUARDIAN",
  E_FEDERATION_DESCRIPTOR_MISMATCH: "E_BAD_FEDERATION_DESCRIPTOR",
  E_FEDERATION_THRESHOLD_MISMATCH: "E_THRESHOLD_MISMATCH",
} as const;

/**
 * OC outcomes the spec's reason table has no dedicated reason for. They answer `invalid_body` (with the code in
 * `detail`) until the table grows one, e.g. `scope_denied` (403); this is the one line to change then.
 */
export const UNMAPPED_CODE_REASON = {
  E_SCOPE_DENIED: "scope_denied",
  E_SUBDELEGATION_SCOPE_ESCALATED: "scope_denied",
  E_SUBDELEGATION_EXPIRES_EXTENDED: "invalid_body",
  E_SUBDELEGATION_DEPTH_EXCEEDED: "invalid_body",
} as const satisfies Partial<Record<OcErrorCode, Reason>>;

/** `code` is null for project-only refusals no OC rule names (wrong endpoint, session, already revoked). */
export interface AgentFailure {
  ok: false;
  reason: Reason;
  code: OcErrorCode | null;
  detail: string;
}

export type AgentCheck = { ok: true } | AgentFailure;

export function refuse(reason: Reason, code: OcErrorCode | null, detail: string): AgentFailure {
  return { ok: false, reason, code, detail: code ? `${code}: ${detail}` : detail };
}

/** Thrown inside the parsers to stop at the first problem; never escapes the public functions. */
export class Refusal extends Error {
  readonly failure: AgentFailure;
  constructor(failure: AgentFailure) {
    super(failure.detail);
    this.failure = failure;
  }
}

export function refusal(reason: Reason, code: OcErrorCode | null, detail: string): Refusal {
  return new Refusal(refuse(reason, code, detail));
}
