// Who signs each OC Pledge envelope and the BIP-322 check over its 64-char hex id (PLG SPEC §3.5, §4.3, §5.3),
// including the one case an envelope is legitimately unsigned: a deterministic outcome.
import { verifyMessageSignature } from "../../bitcoin/bip322";
import { DETERMINISTIC } from "./canonical";
import type { Mechanism, OutcomeEnvelope, ParsedPledgeEnvelope, PledgeCode } from "./types";

export type SignatureCheck =
  | {
      ok: true;
      /** The address whose signature verified; null for an unsigned deterministic outcome. */
      signer: string | null;
    }
  | { ok: false; reason: "malformed_signature" | "envelope_signature_invalid"; code: PledgeCode; detail: string };

const BAD_SIG: Record<ParsedPledgeEnvelope["kind"], PledgeCode> = {
  pledge: "E_PLEDGE_BAD_SIG",
  "pledge-outcome": "E_OUTCOME_BAD_SIG",
  "pledge-abandonment": "E_ABANDONMENT_BAD_SIG",
};

/**
 * An outcome may be unsigned only when `resolved_by` is `deterministic` and the outcome is a function of public
 * state: any value of the deterministic mechanisms except `disputed` (a dispute is two parties disagreeing, which
 * no computation yields), and for counterparty_signs only `expired_unresolved` (v16: nobody signed in time).
 */
export function isDeterministicOutcomeAllowed(outcome: Pick<OutcomeEnvelope, "outcome" | "evidence">): boolean {
  if (outcome.outcome === "expired_unresolved") return true;
  if (outcome.outcome === "disputed") return false;
  return (outcome.evidence.mechanism as Mechanism) !== "counterparty_signs";
}

/**
 * The address that must have signed: the swearer, or `agent_address` on an agent-delegated pledge whatever
 * `sig.pubkey` says (discrepancy 15); an outcome's resolver; an abandonment's `sig.pubkey` (rules.ts holds it to
 * the pledge's swearer). Null for an unsigned deterministic outcome.
 */
export function expectedSigner(parsed: ParsedPledgeEnvelope): string | null {
  switch (parsed.kind) {
    case "pledge":
      return parsed.envelope.via_delegation !== undefined && parsed.envelope.agent_address !== undefined
        ? parsed.envelope.agent_address
        : parsed.envelope.swearer.address;
    case "pledge-outcome":
      return parsed.envelope.resolved_by === DETERMINISTIC ? null : parsed.envelope.resolved_by;
    case "pledge-abandonment":
      return parsed.envelope.sig.pubkey;
  }
}

export function verifyPledgeSignature(parsed: ParsedPledgeEnvelope): SignatureCheck {
  const code = BAD_SIG[parsed.kind];
  const refuse = (detail: string): SignatureCheck => ({
    ok: false,
    reason: "envelope_signature_invalid",
    code,
    detail,
  });
  const signer = expectedSigner(parsed);
  const sig = parsed.envelope.sig;
  if (signer === null) {
    // Only outcomes have no signer, and their parser already refused a deterministic one carrying a sig.
    const outcome = parsed.envelope as OutcomeEnvelope;
    return isDeterministicOutcomeAllowed(outcome)
      ? { ok: true, signer: null }
      : refuse(`a ${outcome.evidence.mechanism} outcome of ${outcome.outcome} must be signed by its resolver`);
  }
  if (sig === null) return refuse("an outcome resolved by an address must carry that address's signature");
  const verdict = verifyMessageSignature({ address: signer, message: parsed.id, signature: sig.value });
  if (verdict.ok) return { ok: true, signer };
  if (verdict.reason === "malformed_signature") {
    return { ok: false, reason: "malformed_signature", code, detail: "sig.value does not decode as a signature" };
  }
  return refuse(`BIP-322 signature by ${signer} over the id does not verify (${verdict.reason})`);
}
