// The three OC Pledge canonical messages (oc-wire-formats §4.1, §4.4, §4.5): each input is checked against the
// field rules first, then rendered LF-separated with no trailing LF. The id is the sha256 of those bytes.
import { sha256Hex } from "../../crypto/digest";
import { HEX_64, isAddress, isNonNegativeInteger, NONCE, parseIsoSeconds, singleLineProblem } from "./grammar";
import { disputeMechanismProblem, isMechanism, mechanismProblem, queryProblem } from "./resolution";
import { type AbandonmentInput, OUTCOMES, type OutcomeInput, type PledgeCode, type PledgeInput } from "./types";

export const PLEDGE_DOMAIN = "oc-pledge/v1";
export const OUTCOME_DOMAIN = "oc-pledge-outcome/v1";
export const ABANDONMENT_DOMAIN = "oc-pledge-abandonment/v1";
export const DETERMINISTIC = "deterministic";
export const REMEDIATION = "breach_recorded";

export type MessageResult = { ok: true; message: string } | { ok: false; code: PledgeCode; detail: string };

type Problem = { code: PledgeCode; detail: string } | undefined;

/** `null` renders as the bare literal; "null" as a value would collide with it (see grammar.isAddress). */
const orNull = (value: string | null): string => value ?? "null";

function malformed(code: PledgeCode, detail: string | undefined): Problem {
  return detail === undefined ? undefined : { code, detail };
}

function timestampProblem(name: string, value: string): string | undefined {
  return parseIsoSeconds(value) === undefined ? `${name} must be YYYY-MM-DDTHH:MM:SSZ` : undefined;
}

function resolvesAtProblem(input: PledgeInput): string | undefined {
  const keys = Object.keys(input.resolves_at);
  if (keys.length !== 1) return "resolves_at must hold exactly one of time or block";
  if ("time" in input.resolves_at) {
    const resolves = parseIsoSeconds(input.resolves_at.time);
    if (resolves === undefined) return "resolves_at.time must be YYYY-MM-DDTHH:MM:SSZ";
    const expires = parseIsoSeconds(input.expires_at);
    // v09 pins resolves_at == expires_at as legal.
    if (expires !== undefined && expires < resolves) return "expires_at must not precede resolves_at.time";
    return undefined;
  }
  if ("block" in input.resolves_at) {
    return isNonNegativeInteger(input.resolves_at.block) ? undefined : "resolves_at.block must be a block height";
  }
  return "resolves_at must hold exactly one of time or block";
}

function pledgeProblem(input: PledgeInput): Problem {
  const M = "E_PLEDGE_MALFORMED";
  const { resolution, bond, dispute } = input;
  const mechanism = mechanismProblem(resolution.mechanism);
  return (
    malformed(M, isAddress(input.swearer) ? undefined : "swearer must be a Bitcoin address") ??
    malformed(M, singleLineProblem("proposition", input.proposition, 512)) ??
    mechanism ??
    malformed(M, singleLineProblem("resolution.query", resolution.query, 1024)) ??
    (isMechanism(resolution.mechanism) ? queryProblem(resolution.mechanism, resolution.query) : undefined) ??
    malformed(M, timestampProblem("expires_at", input.expires_at)) ??
    malformed(M, resolvesAtProblem(input)) ??
    malformed(M, HEX_64.test(bond.attestation_id) ? undefined : "bond.attestation_id must be 64 lowercase hex") ??
    malformed(M, isNonNegativeInteger(bond.min_sats) ? undefined : "bond.min_sats must be a non-negative integer") ??
    malformed(M, isNonNegativeInteger(bond.min_days) ? undefined : "bond.min_days must be a non-negative integer") ??
    malformed(
      M,
      input.counterparty !== null && !isAddress(input.counterparty)
        ? "counterparty must be a Bitcoin address or null"
        : undefined,
    ) ??
    malformed(
      M,
      resolution.mechanism === "counterparty_signs" && input.counterparty === null
        ? "counterparty_signs needs a counterparty"
        : undefined,
    ) ??
    malformed(M, disputeMechanismProblem(dispute.mechanism)) ??
    malformed(
      M,
      dispute.params === null
        ? undefined
        : dispute.params === "null"
          ? "dispute.params must not be the text null"
          : singleLineProblem("dispute.params", dispute.params),
    ) ??
    malformed(M, input.remediation === REMEDIATION ? undefined : "remediation must be breach_recorded") ??
    malformed(M, timestampProblem("sworn_at", input.sworn_at)) ??
    malformed(
      M,
      input.nonce === ""
        ? "nonce MUST be 16-byte hex (32 chars), not empty"
        : NONCE.test(input.nonce)
          ? undefined
          : "nonce must be 32 lowercase hex characters",
    )
  );
}

export function pledgeMessage(input: PledgeInput): MessageResult {
  const problem = pledgeProblem(input);
  if (problem) return { ok: false, ...problem };
  const at = input.resolves_at;
  const lines = [
    PLEDGE_DOMAIN,
    `swearer: ${input.swearer}`,
    `proposition: ${input.proposition}`,
    "resolution:",
    `  mechanism: ${input.resolution.mechanism}`,
    `  query: ${input.resolution.query}`,
    "resolves_at:",
    "time" in at ? `  time: ${at.time}` : `  block: ${at.block}`,
    `expires_at: ${input.expires_at}`,
    "bond:",
    `  attestation_id: ${input.bond.attestation_id}`,
    `  min_sats: ${input.bond.min_sats}`,
    `  min_days: ${input.bond.min_days}`,
    `counterparty: ${orNull(input.counterparty)}`,
    "dispute:",
    `  mechanism: ${orNull(input.dispute.mechanism)}`,
    `  params: ${orNull(input.dispute.params)}`,
    `remediation: ${input.remediation}`,
    `sworn_at: ${input.sworn_at}`,
    `nonce: ${input.nonce}`,
  ];
  return { ok: true, message: lines.join("\n") };
}

function outcomeProblem(input: OutcomeInput): Problem {
  const M = "E_OUTCOME_MALFORMED";
  const { evidence } = input;
  return (
    malformed(M, HEX_64.test(input.pledge_id) ? undefined : "pledge_id must be 64 lowercase hex") ??
    malformed(M, OUTCOMES.includes(input.outcome) ? undefined : `outcome must be one of ${OUTCOMES.join(", ")}`) ??
    malformed(M, timestampProblem("resolved_at", input.resolved_at)) ??
    malformed(
      M,
      input.resolved_by === DETERMINISTIC || isAddress(input.resolved_by)
        ? undefined
        : "resolved_by must be a Bitcoin address or deterministic",
    ) ??
    malformed(M, isMechanism(evidence.mechanism) ? undefined : "evidence.mechanism must be one of the seven") ??
    malformed(M, singleLineProblem("evidence.result", evidence.result)) ??
    malformed(M, singleLineProblem("evidence.witness", evidence.witness)) ??
    malformed(M, timestampProblem("dispute_window_ends_at", input.dispute_window_ends_at))
  );
}

export function outcomeMessage(input: OutcomeInput): MessageResult {
  const problem = outcomeProblem(input);
  if (problem) return { ok: false, ...problem };
  const lines = [
    OUTCOME_DOMAIN,
    `pledge_id: ${input.pledge_id}`,
    `outcome: ${input.outcome}`,
    `resolved_at: ${input.resolved_at}`,
    `resolved_by: ${input.resolved_by}`,
    "evidence:",
    `  mechanism: ${input.evidence.mechanism}`,
    `  result: ${input.evidence.result}`,
    `  witness: ${input.evidence.witness}`,
    `dispute_window_ends_at: ${input.dispute_window_ends_at}`,
  ];
  return { ok: true, message: lines.join("\n") };
}

export function abandonmentMessage(input: AbandonmentInput): MessageResult {
  const M = "E_ABANDONMENT_MALFORMED";
  const problem =
    malformed(M, HEX_64.test(input.pledge_id) ? undefined : "pledge_id must be 64 lowercase hex") ??
    malformed(M, timestampProblem("abandoned_at", input.abandoned_at)) ??
    malformed(M, singleLineProblem("reason", input.reason, 280));
  if (problem) return { ok: false, ...problem };
  const lines = [
    ABANDONMENT_DOMAIN,
    `pledge_id: ${input.pledge_id}`,
    `abandoned_at: ${input.abandoned_at}`,
    `reason: ${input.reason}`,
  ];
  return { ok: true, message: lines.join("\n") };
}

/** pledge_id, outcome_id and abandonment_id: lowercase hex sha256 of the message's UTF-8 bytes. */
export function messageId(message: string): Promise<string> {
  return sha256Hex(message);
}
