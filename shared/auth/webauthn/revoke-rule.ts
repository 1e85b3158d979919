// Which fresh proof revoking a hardware key needs (issue 27): a step-up (a key assertion with UV within the window)
// while another key remains, so a stolen session cannot strip the account's keys with an identity proof alone; when
// the key is the account's last, a fresh sudo proof is enough (no key is left to step up with), never a recovery
// sign-in's (freshness.ts). Every address of the account is told of each removal (security-mail.ts).
import { type FreshnessKind, type Proofs, staleProof } from "../freshness";

/** The proof to ask for before revoking, or undefined when the session may revoke now. */
export function revokeRefusal(proofs: Proofs, otherKeys: number, nowMs: number): FreshnessKind | undefined {
  if (staleProof(proofs, ["step_up"], nowMs) === undefined) return undefined;
  return otherKeys === 0 ? staleProof(proofs, ["sudo"], nowMs) : "step_up";
}
