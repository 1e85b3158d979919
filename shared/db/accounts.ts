// Accounts and their sign-in identities. An identity belongs to one account (primary key on kind+value);
// the account and its first identity are written in one batch, so a race cannot leave an orphan account.
import { and, eq } from "drizzle-orm";
import type { DisplayIdentity, DisplayIdentityKind } from "../auth/session-token";
import { randomHex } from "../crypto/digest";
import type { Db } from "./client";
import { accountIdentities, accounts } from "./schema";

export type AccountRow = typeof accounts.$inferSelect;

/** The Account resource of service-spec.md. */
export interface AccountView {
  did_oc: string;
  display_name: string | null;
  primary_btc: string | null;
  display_identity: DisplayIdentity;
}

export async function accountByIdentity(db: Db, kind: string, value: string): Promise<AccountRow | undefined> {
  const rows = await db
    .select({ account: accounts })
    .from(accountIdentities)
    .innerJoin(accounts, eq(accounts.id, accountIdentities.accountId))
    .where(and(eq(accountIdentities.kind, kind), eq(accountIdentities.value, value)))
    .limit(1);
  return rows[0]?.account;
}

export async function accountByDid(db: Db, didOc: string): Promise<AccountRow | undefined> {
  return db.select().from(accounts).where(eq(accounts.didOc, didOc)).get();
}

/**
 * Finds the account holding a sign-in identity (a Bitcoin address, an email, a provider subject), creating it on
 * first sign-in. Accounts minted by email or a provider are held by the service: no signing key is handed out.
 */
export async function findOrCreateAccount(
  db: Db,
  identity: { kind: string; value: string },
  profile: { primaryBtc?: string | null; displayName?: string | null; displayIdentityKind: DisplayIdentityKind },
  now: number,
): Promise<AccountRow> {
  const existing = await accountByIdentity(db, identity.kind, identity.value);
  if (existing) return existing;
  const id = randomHex(16);
  const row: AccountRow = {
    id,
    didOc: `did:oc:${id}`,
    displayName: profile.displayName ?? null,
    primaryBtc: profile.primaryBtc ?? null,
    displayIdentityKind: profile.displayIdentityKind,
    createdAt: now,
    updatedAt: now,
    recoveryEmail: null,
    recoverySetAt: null,
    mergedInto: null,
    mergedFrom: null,
    deletionRequestedAt: null,
    deletionDueAt: null,
    deletedAt: null,
  };
  try {
    await db.batch([
      db.insert(accounts).values(row),
      db
        .insert(accountIdentities)
        .values({ kind: identity.kind, value: identity.value, accountId: id, createdAt: now }),
    ]);
    return row;
  } catch (err) {
    // A concurrent first sign-in of the same identity won its primary key: use that account.
    const winner = await accountByIdentity(db, identity.kind, identity.value);
    if (winner) return winner;
    throw err;
  }
}

/** Finds the account holding a Bitcoin address, creating it on first sign-in. */
export function findOrCreateBtcAccount(db: Db, address: string, now: number): Promise<AccountRow> {
  return findOrCreateAccount(
    db,
    { kind: "btc", value: address },
    { primaryBtc: address, displayIdentityKind: "btc" },
    now,
  );
}

/** The value shown for a display-identity kind, or undefined when the account has none of that kind. */
export async function displayValue(db: Db, account: AccountRow, kind: string): Promise<string | undefined> {
  if (kind === "did") return account.didOc;
  if (kind === "btc") return account.primaryBtc ?? undefined;
  const identity = await db
    .select({ value: accountIdentities.value })
    .from(accountIdentities)
    .where(and(eq(accountIdentities.accountId, account.id), eq(accountIdentities.kind, kind)))
    .limit(1);
  return identity[0]?.value;
}

export async function accountView(db: Db, account: AccountRow): Promise<AccountView> {
  const kind = account.displayIdentityKind as DisplayIdentityKind;
  const value = await displayValue(db, account, kind);
  return {
    did_oc: account.didOc,
    display_name: account.displayName,
    primary_btc: account.primaryBtc,
    // An identity that no longer resolves falls back to the did, as consumers are told to do.
    display_identity: value === undefined ? { kind: "did", value: account.didOc } : { kind, value },
  };
}

export async function updateAccount(
  db: Db,
  id: string,
  changes: { displayName?: string | null; displayIdentityKind?: DisplayIdentityKind },
  now: number,
): Promise<AccountRow | undefined> {
  const rows = await db
    .update(accounts)
    .set({ ...changes, updatedAt: now })
    .where(eq(accounts.id, id))
    .returning();
  return rows[0];
}
