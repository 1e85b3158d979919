// Re-authentication windows (service-spec Authentication 6; issue 27): how recent a proof must be for a sensitive
// operation, as plain functions of the session row and `now`. `sudo_at` is the last proof of any identity of the
// account in this browser (a sign-in or a re-authentication); `step_up_at` the last hardware-key assertion. The
// rule is auth-core's freshness rule, `0 ≤ now − at < window`: a proof from the future is not fresh.
import type { Reason } from "../errors";

/** Linking or unlinking an identity, changing primary_btc or the recovery address, registering a hardware key. */
export const SUDO_WINDOW_S = 600;
/** Revoking a hardware key while another remains (Clerk's reverification window, GitHub's sudo mode: 10 minutes). */
export const STEP_UP_WINDOW_S = 600;

export type FreshnessKind = "sudo" | "step_up";

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
}

/** The reason a stale proof answers: it tells the page which proof to ask for (403, shared/reasons.ts). */
export const STALE_REASON: Record<FreshnessKind, Reason> = {
  sudo: "sudo_required",
  step_up: "step_up_required",
};

/** The first kind of proof among `needs` that is not fresh, or undefined when every one is. */
export function staleProof(proofs: Proofs, needs: readonly FreshnessKind[], nowMs: number): FreshnessKind | undefined {
  for (const kind of needs) {
    const fresh =
      kind === "sudo"
        ? isFreshAt(proofs.authenticatedAt, SUDO_WINDOW_S, nowMs)
        : isFreshAt(proofs.steppedUpAt, STEP_UP_WINDOW_S, nowMs);
    if (!fresh) return kind;
  }
  return undefined;
}
