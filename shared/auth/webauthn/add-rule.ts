// Which fresh proof registering a hardware key needs (review 3, item 5). While the account has a key, a step-up with
// one of its keys: a fresh identity proof alone (a signature, an email code, a provider, a recovery sign-in) must
// not add a key that would then step up and revoke the owner's. The account's first key needs a fresh sudo (not a
// recovery sign-in's: freshness.ts), as before: there is no key to step up with.
import { type FreshnessKind, type Proofs, staleProof } from "../freshness";

/** The proof to ask for before adding a key to an account holding `keys` keys, or undefined when the session may. */
export function addRefusal(proofs: Proofs, keys: number, nowMs: number): FreshnessKind | undefined {
  return staleProof(proofs, keys === 0 ? ["sudo"] : ["step_up"], nowMs);
}
