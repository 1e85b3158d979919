// Leaving (issue 46, item 3): an account's deletion asked, undone, and found due by the cron. Asking marks the
// account for the end of the grace period and ends its other sessions (a thief holding one cannot undo it behind the
// owner's back; signing in again offers the undo); the account log records both, in the change's own batch.
import { and, eq, isNotNull, isNull, lte, ne } from "drizzle-orm";
import { DAY } from "../time";
import { type AccountChange, accountEventIfChanged } from "./account-events";
import type { Db } from "./client";
import { accounts, sessions } from "./schema";

/** The grace period when ACCOUNT_DELETION_GRACE_DAYS is unset or not a whole number of days from 0 to 90. */
export const DEFAULT_GRACE_DAYS = 7;
/** The accounts one cron run erases at most (the rest wait for the next run). */
export const ERASURES_PER_RUN = 20;

/** The grace period in ms, from the variable (days; 0 erases at the next cron run). */
export function graceMs(value: string | undefined): number {
  const days = value === undefined || !/^\d{1,2}$/.test(value.trim()) ? DEFAULT_GRACE_DAYS : Number(value);
  return Math.min(days, 90) * DAY;
}

export interface Scheduled {
  requestedAt: number;
  dueAt: number;
}

/** The account's scheduled deletion, if any. */
export async function scheduledDeletion(db: Db, accountId: string): Promise<Scheduled | undefined> {
  const row = await db
    .select({ requestedAt: accounts.deletionRequestedAt, dueAt: accounts.deletionDueAt })
    .from(accounts)
    .where(and(eq(accounts.id, accountId), isNull(accounts.deletedAt)))
    .get();
  if (!row || row.requestedAt === null || row.dueAt === null) return undefined;
  return { requestedAt: row.requestedAt, dueAt: row.dueAt };
}

/**
 * Marks the account for erasure at `dueAt` (asking again keeps the first schedule), ends every other session of it,
 * and logs it. Returns the schedule in force.
 */
export async function scheduleDeletion(db: Db, change: AccountChange, dueAt: number): Promise<Scheduled> {
  const { accountId, sessionId, now } = change;
  await db.batch([
    db
      .update(accounts)
      .set({ deletionRequestedAt: now, deletionDueAt: dueAt, updatedAt: now })
      .where(and(eq(accounts.id, accountId), isNull(accounts.deletionDueAt), isNull(accounts.deletedAt))),
    accountEventIfChanged(db, {
      accountId,
      eventType: "account.deletion_scheduled",
      sessionId,
      detail: { due_at: new Date(dueAt).toISOString() },
      now,
    }),
    db.delete(sessions).where(and(eq(sessions.accountId, accountId), ne(sessions.id, sessionId))),
  ]);
  return (await scheduledDeletion(db, accountId)) ?? { requestedAt: now, dueAt };
}

/** Undoes a scheduled deletion; true when there was one. */
export async function cancelDeletion(db: Db, change: AccountChange): Promise<boolean> {
  const { accountId, sessionId, now } = change;
  const [updated] = await db.batch([
    db
      .update(accounts)
      .set({ deletionRequestedAt: null, deletionDueAt: null, updatedAt: now })
      .where(and(eq(accounts.id, accountId), isNotNull(accounts.deletionDueAt), isNull(accounts.deletedAt)))
      .returning({ id: accounts.id }),
    accountEventIfChanged(db, { accountId, eventType: "account.deletion_cancelled", sessionId, now }),
  ]);
  return updated.length > 0;
}

/** Accounts whose grace period is over, oldest due first. */
export function dueForErasure(db: Db, now: number, limit = ERASURES_PER_RUN) {
  return db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(lte(accounts.deletionDueAt, now), isNull(accounts.deletedAt)))
    .orderBy(accounts.deletionDueAt)
    .limit(limit);
}
