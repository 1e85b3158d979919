// The signed-in account's session, checked fresh enough for a sensitive operation (service-spec Authentication 6;
// issue 27). Freshness is read from the session row, the server's own record of the proofs, not from the cookie's
// claims: a re-authentication in this browser counts at once, and an old cookie copied elsewhere counts for no more
// than its row does. A stale proof answers 403 with the reason that names the proof to ask for.
import type { Context } from "hono";
import type { CurrentSession } from "../../../shared/auth/current-session";
import {
  type FreshnessKind,
  type Proofs,
  provenByRecovery,
  STALE_REASON,
  staleProof,
} from "../../../shared/auth/freshness";
import { AppError } from "../../../shared/errors";
import type { AuthEnv } from "./env";
import { requireSession } from "./session-context";

export async function requireFreshSession(
  c: Context<AuthEnv>,
  now: number,
  needs: readonly FreshnessKind[],
): Promise<CurrentSession> {
  const current = await requireSession(c, now);
  const stale = staleProof(current.session, needs, now);
  if (stale) throw staleRefusal(stale, current.session);
  return current;
}

const AFTER_RECOVERY =
  "a recovery sign-in proves only the recovery mailbox: confirm it is you with a signature, a key, a provider or " +
  "a code mailed to one of the account's addresses, then retry";

/** The 403 for a stale proof: its reason names the proof to ask for (and why, after a recovery sign-in). */
export function staleRefusal(stale: FreshnessKind, proofs?: Proofs): AppError {
  const detail =
    stale === "sudo" && proofs && provenByRecovery(proofs)
      ? AFTER_RECOVERY
      : `a ${stale === "step_up" ? "step-up" : "sudo"} proof within the last 10 minutes`;
  return new AppError(STALE_REASON[stale], { detail });
}
