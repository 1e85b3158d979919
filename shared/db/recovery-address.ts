// The recovery address (issue 27): an email proven by a code through which a person who lost every sign-in identity
// gets back in. One account per address (a unique index). Setting and removing it are each a compare-and-set on the
// address read just before, with the account-log line in the same batch, so the line and the notice name exactly the
// address that was replaced, and a refused change logs nothing.
import { and, eq, isNull, ne, notExists, sql } from "drizzle-orm";
import { AppError } from "../errors";
import { type AccountChange, accountEventIfChanged } from "./account-events";
import type { AccountRow } from "./accounts";
import type { Db } from "./client";
import { accounts } from "./schema";

export interface RecoveryAddress {
  email: string;
  setAt: number;
}

/** A compare-and-set lost to a concurrent change of the same account is tried again this many times. */
const CAS_TRIES = 3;

export async function recoveryAddressOf(db: Db, accountId: string): Promise<RecoveryAddress | undefined> {
  const row = await db
    .select({ email: accounts.recoveryEmail, setAt: accounts.recoverySetAt })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .get();
  return row?.email ? { email: row.email, setAt: row.setAt ?? 0 } : undefined;
}

/** The account an address recovers: never one merged into another (it signs nobody in again). */
export function accountRecoveredBy(db: Db, email: string): Promise<AccountRow | undefined> {
  return db
    .select()
    .from(accounts)
    .where(and(eq(accounts.recoveryEmail, email), isNull(accounts.mergedInto)))
    .get();
}

const sameAddress = (previous: string | null) =>
  previous === null ? isNull(accounts.recoveryEmail) : eq(accounts.recoveryEmail, previous);

async function heldElsewhere(db: Db, email: string, accountId: string): Promise<boolean> {
  const row = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.recoveryEmail, email), ne(accounts.id, accountId)))
    .get();
  return row !== undefined;
}

/**
 * Makes `email` (just proven by a code) the account's recovery address; returns the address it replaced, or null.
 * `recovery_address_taken` when it recovers another account: its owner has just proven it, so this tells nobody else.
 */
export async function setRecoveryAddress(
  db: Db,
  email: string,
  change: AccountChange,
): Promise<{ previous: string | null }> {
  const { accountId, now } = change;
  const free = notExists(
    db
      .select({ one: sql`1` })
      .from(accounts)
      .where(and(eq(accounts.recoveryEmail, email), ne(accounts.id, accountId))),
  );
  for (let i = 0; i < CAS_TRIES; i++) {
    const previous = (await recoveryAddressOf(db, accountId))?.email ?? null;
    let updated: { id: string }[];
    try {
      [updated] = await db.batch([
        db
          .update(accounts)
          .set({ recoveryEmail: email, recoverySetAt: now, updatedAt: now })
          .where(and(eq(accounts.id, accountId), sameAddress(previous), free))
          .returning({ id: accounts.id }),
        accountEventIfChanged(db, { ...change, eventType: "recovery.set", detail: { email, previous } }),
      ]);
    } catch (err) {
      // Another account set the same address between the check and the write: the unique index refused it.
      if (await heldElsewhere(db, email, accountId)) throw new AppError("recovery_address_taken");
      throw err;
    }
    if (updated.length > 0) return { previous };
    if (await heldElsewhere(db, email, accountId)) throw new AppError("recovery_address_taken");
  }
  throw new Error("the recovery address kept changing while it was set");
}

/** Removes the account's recovery address; returns it (to be told). `recovery_not_set` when there is none. */
export async function removeRecoveryAddress(db: Db, change: AccountChange): Promise<{ previous: string }> {
  const { accountId, now } = change;
  for (let i = 0; i < CAS_TRIES; i++) {
    const previous = (await recoveryAddressOf(db, accountId))?.email;
    if (previous === undefined) throw new AppError("recovery_not_set");
    const [removed] = await db.batch([
      db
        .update(accounts)
        .set({ recoveryEmail: null, recoverySetAt: null, updatedAt: now })
        .where(and(eq(accounts.id, accountId), sameAddress(previous)))
        .returning({ id: accounts.id }),
      accountEventIfChanged(db, { ...change, eventType: "recovery.removed", detail: { email: previous } }),
    ]);
    if (removed.length > 0) return { previous };
  }
  throw new Error("the recovery address kept changing while it was removed");
}
