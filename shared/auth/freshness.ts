// Re-authentication windows (service-spec Authentication 6; issue 27): how recent a proof must be for a sensitive
// operation, as plain functions of the session row and `now`. `sudo_at` is the last proof of any identity of the
// account in this browser (a sign-in or a re-authentication); `step_up_at` the last hardware-key assertion with user
// verification. The rule is auth-core's freshness rule, `0 ≤ now − at < window`: a proof from the future is not fresh.
// A recovery sign-in proves only the recovery mailbox (review 3): it is fresh enough to link a new way in (what a
// recovery is for), and for nothing else until the session proves something more (a signature, a key, a provider,
// an email code of one of the account's identities).
import type { Reason } from "../errors";

/** Linking or unlinking an identity, changing primary_btc or the recovery address, registering a hardware key. */
export const SUDO_WINDOW_S = 600;
/** Revoking a hardware key while another remains (Clerk's reverification window, GitHub's sudo mode: 10 minutes). */
export const STEP_UP_WINDOW_S = 600;

/**
 * `link`: a fresh proof of any kind, a recovery sign-in included (linking a new identity). `sudo`: a fresh proof other
 * than a recovery sign-in (every other sensitive operation). `step_up`: a fresh hardware-key assertion with UV.
 */
export type FreshnessKind = "sudo" | "link" | "step_up";

/** The session's `auth_method` when its last proof was a recovery sign-in. */
export const RECOVERY_METHOD = "recovery";

/** Whether a proof made at `atMs` (ms) is inside `windowS` of `nowMs`. */
export function isFreshAt(atMs: number | null | undefined, windowS: number, nowMs: number): boolean {
  if (atMs === null || atMs === undefined) return false;
  const age = nowMs - atMs;
  return age >= 0 && age < windowS * 1000;
}

/** What a session row holds of its proofs. */
export interface Proofs {
  authenticatedAt: number;
  steppedUpAt: number | null;
  /** How the last proof was made (the row's auth_method); `recovery` counts for `link` only. */
  authMethod?: string | null;
}

/** The reason a stale proof answers: it tells the page which proof to ask for (403, shared/reasons.ts). */
export const STALE_REASON: Record<FreshnessKind, Reason> = {
  sudo: "sudo_required",
  link: "sudo_required",
  step_up: "step_up_required",
};

/** Whether the row's last proof of an identity was a recovery sign-in. */
export const provenByRecovery = (proofs: Proofs): boolean => proofs.authMethod === RECOVERY_METHOD;

function fresh(proofs: Proofs, kind: FreshnessKind, nowMs: number): boolean {
  switch (kind) {
    case "link":
      return isFreshAt(proofs.authenticatedAt, SUDO_WINDOW_S, nowMs);
    case "sudo":
      return !provenByRecovery(proofs) && isFreshAt(proofs.authenticatedAt, SUDO_WINDOW_S, nowMs);
    case "step_up":
      return isFreshAt(proofs.steppedUpAt, STEP_UP_WINDOW_S, nowMs);
  }
}

/** The first kind of proof among `needs` that is not fresh, or undefined when every one is. */
export function staleProof(proofs: Proofs, needs: readonly FreshnessKind[], nowMs: number): FreshnessKind | undefined {
  return needs.find((kind) => !fresh(proofs, kind, nowMs));
}
