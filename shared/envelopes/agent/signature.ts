// BIP-322 checks of a parsed envelope (oc-wire-formats §3.7): the signer's signature over the 64-char hex id, or
// every guardian's for a federation. DECISIONS 3: undecodable → malformed_signature, decodes but fails → invalid.
import { verifyMessageSignature } from "../../bitcoin/bip322";
import type { ParsedEnvelope } from "./envelope";
import type { BipSignature } from "./types";

export type SignatureCheck =
  | { ok: true }
  | {
      ok: false;
      reason: "malformed_signature" | "envelope_signature_invalid";
      code: "E_BAD_SIG" | "E_BAD_ACTION_STAMP";
      detail: string;
    };

interface SignedBy {
  address: string;
  value: string;
}

function signatures(parsed: ParsedEnvelope): SignedBy[] {
  if (parsed.federation) {
    return parsed.federation.signatures.map((s) => ({ address: s.guardian_address, value: s.value }));
  }
  // The shape check pinned sig.pubkey to the signer, so the signer's address is the one to verify under.
  return [{ address: parsed.signer, value: (parsed.envelope.sig as BipSignature).value }];
}

export function verifyEnvelopeSignatures(parsed: ParsedEnvelope): SignatureCheck {
  // Agent-core reports a failed action signature as a stamp failure, not E_BAD_SIG (§3.14).
  const code = parsed.kind === "action" ? "E_BAD_ACTION_STAMP" : "E_BAD_SIG";
  for (const { address, value } of signatures(parsed)) {
    const verdict = verifyMessageSignature({ address, message: parsed.id, signature: value });
    if (verdict.ok) continue;
    const detail = `${code}: signature by ${address} over ${parsed.id}: ${verdict.reason}`;
    const reason = verdict.reason === "malformed_signature" ? "malformed_signature" : "envelope_signature_invalid";
    return { ok: false, reason, code, detail };
  }
  return { ok: true };
}
