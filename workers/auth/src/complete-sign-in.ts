// The end of every sign-in path (Bitcoin, email code, provider): the same roster rules, the same session row and
// the same cookie, so consumer code never branches on how the user signed in.
import type { Context } from "hono";
import type { AccountRow, AccountView } from "../../../shared/db/accounts";
import { orm } from "../../../shared/db/client";
import {
  type AuthMethod,
  deleteRoster,
  deleteSession,
  ROSTER_CAP,
  rosterMembers,
  signInSession,
} from "../../../shared/db/sessions";
import { AppError } from "../../../shared/errors";
import type { AuthEnv } from "./env";
import { currentSession, setSessionCookie } from "./session-context";
import { noteSignInDevice, signInDevice } from "./sign-in-device";

/**
 * The roster the new session joins: the current one when the account is already in it (re-authentication) or
 * when `add` is asked; otherwise a fresh one, and the previous roster is signed out (sign-in without `add`
 * behaves as a single-session host did: the browser ends up holding one account).
 */
async function targetRoster(c: Context<AuthEnv>, accountId: string, add: boolean, now: number): Promise<string> {
  const db = orm(c.env.DB);
  const current = await currentSession(c, now);
  if (!current) return crypto.randomUUID();
  const rosterId = current.session.rosterId;
  if (rosterId === null) {
    await deleteSession(db, current.session); // a legacy single session cannot hold a roster
    return crypto.randomUUID();
  }
  const members = await rosterMembers(db, rosterId, now);
  if (members.some((m) => m.account.id === accountId)) return rosterId;
  if (!add) {
    await deleteRoster(db, rosterId);
    return crypto.randomUUID();
  }
  if (members.length >= ROSTER_CAP) throw new AppError("roster_full", { detail: `at most ${ROSTER_CAP} accounts` });
  return rosterId;
}

/** Whether a sign-in joins the browser's roster: `add: true` in the body, or `add=1` (or `true`) in the query. */
export function addAsked(body: { add?: boolean | undefined }, query: { add?: string | undefined }): boolean {
  return body.add === true || query.add === "1" || query.add === "true";
}

/**
 * Signs `account` in on this browser (joining its roster when `add`) by `method`, sets the cookie, returns the
 * Account. `stepUp`: the proof was a hardware key that verified its user (a passkey with UV), also a step-up.
 * (An account merged into another is never found here: its identities moved to the survivor; issue 27.)
 */
export async function completeSignIn(
  c: Context<AuthEnv>,
  account: AccountRow,
  add: boolean,
  now: number,
  method: AuthMethod,
  stepUp = false,
): Promise<AccountView> {
  const rosterId = await targetRoster(c, account.id, add, now);
  const device = signInDevice(c);
  const issued = await signInSession(orm(c.env.DB), { accountId: account.id, rosterId, now, method, stepUp, device });
  const view = await setSessionCookie(c, account, issued, now);
  await noteSignInDevice(c, account.id, method, now); // after the session cookie: its Set-Cookie line comes first
  return view;
}
