// The account log (issue 27): one row per change to how an account is reached, written in the change's own batch
// where it can be, so a change is never made without its line. Details name identities, key ids and addresses,
// never a secret (no codes, no signatures, no credential public keys).
import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { accountEvents } from "./schema";

export const ACCOUNT_EVENTS = [
  "identity.linked",
  "identity.unlinked",
  "primary_btc.changed",
  "reauthenticated",
  "hardware_key.registered",
  "hardware_key.renamed",
  "hardware_key.revoked",
  "recovery.set",
  "recovery.removed",
  "recovery.signed_in",
  "account.merged",
  "session.signed_out",
  "account.deletion_scheduled",
  "account.deletion_cancelled",
] as const;
export type AccountEventType = (typeof ACCOUNT_EVENTS)[number];

export const isAccountEventType = (value: string): value is AccountEventType =>
  (ACCOUNT_EVENTS as readonly string[]).includes(value);

/** A change made to an account by one of its sessions, at `now`: what the change's log line names. */
export interface AccountChange {
  accountId: string;
  sessionId: string;
  now: number;
}

export interface AccountEventInput {
  accountId: string;
  eventType: AccountEventType;
  /** The session row that made the change, when one did. */
  sessionId: string | null;
  detail?: Record<string, unknown>;
  now: number;
}

/** The insert, for a batch (drizzle's builder: `db.batch([change, accountEvent(db, …)])`). */
export function accountEvent(db: Db, input: AccountEventInput) {
  return db.insert(accountEvents).values({
    accountId: input.accountId,
    eventType: input.eventType,
    detail: input.detail ? JSON.stringify(input.detail) : null,
    sessionId: input.sessionId,
    createdAt: input.now,
  });
}

/**
 * The line, only when the statement just before it in the same batch changed a row (SQLite's `changes()`: a batch
 * is one transaction on one connection), so a refused change logs nothing.
 */
export function accountEventIfChanged(db: Db, input: AccountEventInput) {
  const row = db
    .select({
      // Every column, in table order; NULL lets SQLite assign the next sequence number.
      seq: sql<number>`null`.as("seq"),
      accountId: sql<string>`${input.accountId}`.as("account_id"),
      eventType: sql<string>`${input.eventType}`.as("event_type"),
      detail: sql<string | null>`${input.detail ? JSON.stringify(input.detail) : null}`.as("detail"),
      sessionId: sql<string | null>`${input.sessionId}`.as("session_id"),
      createdAt: sql<number>`${input.now}`.as("created_at"),
    })
    .from(sql`(select 1)`)
    .where(sql`changes() > 0`);
  return db.insert(accountEvents).select(row);
}

export type AccountEventRow = typeof accountEvents.$inferSelect;

/** The account's log, newest first, `limit` rows before `before` (a seq), for paging. */
export function accountLog(db: Db, accountId: string, limit: number, before?: number): Promise<AccountEventRow[]> {
  return db
    .select()
    .from(accountEvents)
    .where(
      and(eq(accountEvents.accountId, accountId), before === undefined ? undefined : lt(accountEvents.seq, before)),
    )
    .orderBy(desc(accountEvents.seq))
    .limit(limit);
}
