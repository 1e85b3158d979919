// The two steps of an account-held email code (link an address, re-authenticate, set the recovery address): asked
// and checked by a signed-in session whose proofs are fresh enough, on the account's fixed attempt of the purpose.
// The session is the binding, so any browser of the account may finish what another began.
import type { Context } from "hono";
import { type AccountPurpose, accountAttempt } from "../../../shared/auth/email-code";
import type { FreshnessKind } from "../../../shared/auth/freshness";
import { type Db, orm } from "../../../shared/db/client";
import type { SessionRow } from "../../../shared/db/sessions";
import { askCode, checkCode, codeKey, requireMailer, takeHourlyStarts } from "./email-codes";
import type { AuthEnv } from "./env";
import { requireFreshSession } from "./fresh-session";

/** What an account-held code's route holds once its session passed. */
export interface AccountStep {
  session: SessionRow;
  db: Db;
  now: number;
}

/**
 * Starts an account-held code (link, re-authentication, recovery address) up to its mail: the signed-in session with
 * the proofs `needs` fresh, the address's and the IP's hourly budgets, a code on the account's attempt of the
 * purpose. `mailedAfterAnswer`: the caller mails after answering, so the mailer is checked first, for every address.
 */
export async function startAccountCode(
  c: Context<AuthEnv>,
  start: { purpose: AccountPurpose; email: string; needs: readonly FreshnessKind[]; mailedAfterAnswer?: boolean },
): Promise<AccountStep & { code: string }> {
  const key = codeKey(c.env);
  if (start.mailedAfterAnswer) requireMailer(c.env);
  const now = Date.now();
  const { session } = await requireFreshSession(c, now, start.needs);
  await takeHourlyStarts(c, start.email);
  const db = orm(c.env.DB);
  const ask = { purpose: start.purpose, email: start.email, accountId: session.accountId };
  const { code } = await askCode(db, key, ask, now);
  return { code, session, db, now };
}

/**
 * Checks an account-held code, from any browser of the account (the session is the binding). The session comes
 * first: a stale one is sent to re-authenticate before the try is counted.
 */
export async function checkAccountCode(
  c: Context<AuthEnv>,
  check: { purpose: AccountPurpose; email: string; code: string; needs: readonly FreshnessKind[] },
): Promise<AccountStep> {
  const key = codeKey(c.env);
  const now = Date.now();
  const { session } = await requireFreshSession(c, now, check.needs);
  const db = orm(c.env.DB);
  const { purpose, email, code } = check;
  const attempt = accountAttempt(purpose, session.accountId);
  await checkCode(db, key, { attempt, purpose, accountId: session.accountId, email, code }, now);
  return { session, db, now };
}
