// What the hardware-key routes share at the HTTP edge: this host as a relying party, answering options with their
// challenge stored, taking an answer's challenge (single use, before anything else is checked, so a replay always
// fails the same way), refusals as table reasons, and a key as its owner sees it.
import type { Context } from "hono";
import { answeredChallenge } from "../../../shared/auth/webauthn/ceremony";
import { type RelyingParty, relyingParty, type WebAuthnConfig } from "../../../shared/auth/webauthn/config";
import { failureReason, type WebAuthnFailure } from "../../../shared/auth/webauthn/failures";
import { type Db, orm } from "../../../shared/db/client";
import {
  type ChallengeInput,
  type ChallengePurpose,
  consumeWebauthnChallenge,
  type KeyRow,
  storedKey,
  storeWebauthnChallenge,
} from "../../../shared/db/webauthn";
import { AppError } from "../../../shared/errors";
import { isoMs } from "../../../shared/time";
import type { AuthEnv } from "./env";

/** WEBAUTHN_USER_VERIFICATION is read here only (it is optional, so AuthBindings need not name it to pass). */
export const rpOf = (c: Context<AuthEnv>): RelyingParty => relyingParty(c.env satisfies WebAuthnConfig);

/**
 * Answers a ceremony's options (never cached), their challenge stored first for the step that takes the answer: for
 * `scope`'s purpose and, for a registration or a step-up, its account and session row.
 */
export async function answerOptions<O extends { challenge: string }>(
  c: Context<AuthEnv>,
  options: O,
  scope: Omit<ChallengeInput, "challenge">,
) {
  await storeWebauthnChallenge(orm(c.env.DB), { challenge: options.challenge, ...scope });
  c.header("Cache-Control", "no-store");
  return c.json({ ok: true as const, options }, 200);
}

/**
 * The challenge an answer carries, consumed: it must have been issued here for `purpose` (and for registration and
 * step-up, to this session row) and not have expired. Consumed whatever the verification that follows decides.
 */
export async function takeChallenge(
  db: Db,
  clientDataJSON: string,
  scope: { purpose: ChallengePurpose; sessionId: string | null; now: number },
): Promise<string> {
  const challenge = answeredChallenge(clientDataJSON);
  const row = challenge && (await consumeWebauthnChallenge(db, { challenge, ...scope }));
  if (!row)
    throw new AppError("webauthn_challenge_invalid", {
      detail: "not issued here for this step, expired (5 minutes), or already used: ask for new options",
    });
  return row.challenge;
}

export function refusal(failure: WebAuthnFailure): AppError {
  const { reason, detail } = failureReason(failure);
  return new AppError(reason, { detail });
}

/** A key as its owner reads it: labels and times, never the public key. */
export function keyView(row: KeyRow) {
  return {
    id: row.id,
    name: row.name,
    created_at: isoMs(row.createdAt),
    last_used_at: row.lastUsedAt === null ? null : isoMs(row.lastUsedAt),
    device_type: row.deviceType,
    backed_up: row.backedUp,
    transports: storedKey(row).transports,
  };
}

/** Names how the user is shown in the authenticator's account list: the account's own label, never a secret. */
export function userLabel(view: { display_name: string | null; display_identity: { value: string } }): string {
  return view.display_name ?? view.display_identity.value;
}
