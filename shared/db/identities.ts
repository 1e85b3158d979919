// An account's sign-in identities (issue 27): Bitcoin addresses, emails proven by a code, provider subjects. An
// identity belongs to one account (primary key on kind+value). Linking and unlinking are each one conditional
// statement with the account-log line in the same batch, so two concurrent unlinks cannot leave an account with no
// way in, and a change never lands without its line.
import { and, asc, eq, sql } from "drizzle-orm";
import { AppError } from "../errors";
import { type AccountChange, accountEventIfChanged } from "./account-events";
import type { Db } from "./client";
import { accountIdentities, accounts } from "./schema";

export interface Identity {
  kind: string;
  value: string;
}

export type IdentityRow = typeof accountIdentities.$inferSelect;

export function listIdentities(db: Db, accountId: string): Promise<IdentityRow[]> {
  return db
    .select()
    .from(accountIdentities)
    .where(eq(accountIdentities.accountId, accountId))
    .orderBy(asc(accountIdentities.createdAt), asc(accountIdentities.kind), asc(accountIdentities.value));
}

/** Which account holds an identity, if any. */
async function holder(db: Db, identity: Identity): Promise<string | undefined> {
  const row = await db
    .select({ accountId: accountIdentities.accountId })
    .from(accountIdentities)
    .where(and(eq(accountIdentities.kind, identity.kind), eq(accountIdentities.value, identity.value)))
    .get();
  return row?.accountId;
}

/**
 * Links a proven identity to the account. Refused when it is already here (`identity_already_linked`) or on another
 * account (`identity_on_other_account`: the two may be merged, never silently moved).
 */
export async function linkIdentity(db: Db, identity: Identity, change: AccountChange): Promise<void> {
  const [inserted] = await db.batch([
    db
      .insert(accountIdentities)
      .values({ ...identity, accountId: change.accountId, createdAt: change.now })
      .onConflictDoNothing()
      .returning({ kind: accountIdentities.kind }),
    accountEventIfChanged(db, { ...change, eventType: "identity.linked", detail: { ...identity } }),
  ]);
  if (inserted.length > 0) return;
  const owner = await holder(db, identity);
  if (owner === change.accountId) throw new AppError("identity_already_linked");
  throw new AppError("identity_on_other_account", {
    detail: "sign in to that account in this browser too, confirm both, and merge them",
  });
}

/**
 * Unlinks an identity, in one conditional DELETE: never the account's last identity (`last_identity`) and never its
 * primary Bitcoin address (`identity_is_primary`: primary_btc changes only by an explicit choice).
 */
export async function unlinkIdentity(db: Db, identity: Identity, change: AccountChange): Promise<void> {
  const { accountId } = change;
  const others = sql`(select count(*) from ${accountIdentities} where ${accountIdentities.accountId} = ${accountId}) > 1`;
  const notPrimary = sql`not (${identity.kind} = 'btc' and ${identity.value} = coalesce((select ${accounts.primaryBtc} from ${accounts} where ${accounts.id} = ${accountId}), ''))`;
  const [deleted] = await db.batch([
    db
      .delete(accountIdentities)
      .where(
        and(
          eq(accountIdentities.accountId, accountId),
          eq(accountIdentities.kind, identity.kind),
          eq(accountIdentities.value, identity.value),
          others,
          notPrimary,
        ),
      )
      .returning({ kind: accountIdentities.kind }),
    accountEventIfChanged(db, { ...change, eventType: "identity.unlinked", detail: { ...identity } }),
  ]);
  if (deleted.length > 0) return;
  if ((await holder(db, identity)) !== accountId) throw new AppError("identity_not_linked");
  const primary = await db.select({ btc: accounts.primaryBtc }).from(accounts).where(eq(accounts.id, accountId)).get();
  if (identity.kind === "btc" && primary?.btc === identity.value) throw new AppError("identity_is_primary");
  throw new AppError("last_identity");
}

/**
 * Sets primary_btc to one of the account's linked Bitcoin addresses, or to none: only ever by this explicit choice
 * (what the fleet sees as the caller's address). One conditional UPDATE.
 */
export async function choosePrimaryBtc(db: Db, address: string | null, change: AccountChange): Promise<void> {
  const { accountId, now } = change;
  const linked =
    address === null
      ? sql`1`
      : sql`exists (select 1 from ${accountIdentities} where ${accountIdentities.accountId} = ${accountId}
          and ${accountIdentities.kind} = 'btc' and ${accountIdentities.value} = ${address})`;
  const [updated] = await db.batch([
    db
      .update(accounts)
      .set({ primaryBtc: address, updatedAt: now })
      .where(and(eq(accounts.id, accountId), linked))
      .returning({ id: accounts.id }),
    accountEventIfChanged(db, { ...change, eventType: "primary_btc.changed", detail: { to: address } }),
  ]);
  if (updated.length === 0) throw new AppError("identity_not_linked", { detail: `${address} is not linked here` });
}
