// The outcome envelope (oc-wire-formats §4.4): parse a received one, build a signed one, and the deterministic
// `expired_unresolved` outcome the reconciler emits for a pledge that passed expires_at unresolved (v16).
import { isoSeconds } from "../../time";
import { canonicalJson, type JsonValue } from "../canonical-json";
import { DETERMINISTIC, messageId, outcomeMessage } from "./canonical";
import type { PledgeSigner } from "./envelope";
import { parseIsoSeconds } from "./grammar";
import { bip322Problem, type EnvelopeSpec, parseWith } from "./parse";
import { SIG_SHAPE } from "./shape";
import type { Mechanism, OutcomeEnvelope, OutcomeInput, ParsedOutcome, ParseResult, PledgeEnvelope } from "./types";

const OUTCOME_SPEC: EnvelopeSpec<OutcomeInput> = {
  kind: "pledge-outcome",
  shape: {
    v: "number",
    kind: "string",
    id: "string",
    pledge_id: "string",
    outcome: "string",
    resolved_at: "string",
    resolved_by: "string",
    evidence: { shape: { mechanism: "string", result: "string", witness: "string" } },
    dispute_window_ends_at: "string",
    sig: { shape: SIG_SHAPE, nullable: true },
  },
  malformed: "E_OUTCOME_MALFORMED",
  badId: "E_OUTCOME_BAD_ID",
  structure(raw) {
    const { sig, resolved_by } = raw as unknown as OutcomeEnvelope;
    if (sig === null) return undefined;
    const alg = bip322Problem(sig, "sig");
    if (alg) return { code: "E_OUTCOME_MALFORMED", detail: alg };
    // pledge-core keys the signature rule on resolved_by: deterministic outcomes are unsigned.
    if (resolved_by === DETERMINISTIC) {
      return { code: "E_OUTCOME_MALFORMED", detail: "a deterministic outcome carries sig: null" };
    }
    return sig.pubkey === resolved_by
      ? undefined
      : { code: "E_OUTCOME_RESOLVER_UNAUTHORIZED", detail: "sig.pubkey must equal resolved_by" };
  },
  input: (raw) => raw as unknown as OutcomeInput,
  message: outcomeMessage,
};

/** Checks a received outcome envelope and recomputes its id; whether it may be unsigned is verifyPledgeSignature's. */
export async function parseOutcomeEnvelope(json: unknown): Promise<ParseResult<ParsedOutcome>> {
  const parsed = await parseWith(json, OUTCOME_SPEC);
  if (!("envelope" in parsed)) return parsed;
  return { ok: true, kind: "pledge-outcome", ...parsed, envelope: parsed.envelope as unknown as OutcomeEnvelope };
}

/** Builds an outcome; `signer` signs its id (its address must be resolved_by), none for deterministic ones. */
export async function createOutcomeEnvelope(input: OutcomeInput, signer?: PledgeSigner): Promise<ParsedOutcome> {
  const built = outcomeMessage(input);
  if (!built.ok) throw new RangeError(`${built.code}: ${built.detail}`);
  const id = await messageId(built.message);
  const envelope: OutcomeEnvelope = {
    v: 1,
    kind: "pledge-outcome",
    id,
    ...input,
    sig: signer ? { alg: "bip322", pubkey: signer.address, value: signer.sign(id) } : null,
  };
  const text = canonicalJson(envelope as unknown as JsonValue);
  return { ok: true, kind: "pledge-outcome", envelope, message: built.message, id, canonicalJson: text };
}

/**
 * Evidence of an expiry: v16 pins counterparty_signs; the other mechanisms follow its pattern (the witness key of
 * §4.4 with an empty value), since nothing was observed.
 */
const EXPIRY_EVIDENCE: Record<Mechanism, { result: string; witness: string }> = {
  counterparty_signs: { result: "no_signature_received", witness: "counterparty_sig=" },
  chain_state: { result: "no_outcome_received", witness: "chain_height=" },
  nostr_event_exists: { result: "no_outcome_received", witness: "nostr_event_id=" },
  stamp_published: { result: "no_outcome_received", witness: "nostr_event_id=" },
  http_get_hash: { result: "no_outcome_received", witness: "http_response_hash=" },
  dns_record: { result: "no_outcome_received", witness: "dns_response=" },
  vote_resolves: { result: "no_outcome_received", witness: "vote_poll_id=" },
};

/** v16's resolved_at is one second after expires_at, the first instant the pledge is past it. */
const EXPIRY_DELAY_MS = 1000;

/**
 * The deterministic `expired_unresolved` outcome of a pledge: unsigned, `resolved_by: deterministic`, a dispute
 * window that closes at once. `resolvedAt` defaults to expires_at + 1 s, which makes the outcome (and its id) a
 * function of the pledge alone, so every verifier and every reconciler run computes the same envelope (SPEC §4.3).
 * Throws if `resolvedAt` is not a strict timestamp at or after expires_at.
 */
export async function expiredUnresolvedOutcome(
  pledge: Pick<PledgeEnvelope, "id" | "expires_at" | "resolution">,
  resolvedAt?: string,
): Promise<ParsedOutcome> {
  const expires = parseIsoSeconds(pledge.expires_at);
  if (expires === undefined) throw new RangeError("pledge.expires_at must be YYYY-MM-DDTHH:MM:SSZ");
  const at = resolvedAt ?? isoSeconds(expires + EXPIRY_DELAY_MS);
  const atMs = parseIsoSeconds(at);
  if (atMs === undefined || atMs < expires)
    throw new RangeError("resolvedAt must be a timestamp at or after expires_at");
  const mechanism = pledge.resolution.mechanism as Mechanism;
  const evidence = EXPIRY_EVIDENCE[mechanism];
  if (!evidence) throw new RangeError(`unknown mechanism ${mechanism}`);
  return createOutcomeEnvelope({
    pledge_id: pledge.id,
    outcome: "expired_unresolved",
    resolved_at: at,
    resolved_by: DETERMINISTIC,
    evidence: { mechanism, ...evidence },
    dispute_window_ends_at: at,
  });
}
