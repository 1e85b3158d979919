// The erasure of an account at the end of its grace period (issue 46, item 3), as data: one entry per table that
// names an account, each the statements that remove the account's rows there. test/auth/account-tables.test.ts
// derives every such table from the schema and fails when one is missing here. The accounts row itself stays as a
// tombstone (personal columns nulled, `deleted_at` set): its did_oc is unique, so it is never issued again.
// One batch (one transaction): the tombstone is written first, only while the deletion is still due, and every
// other statement runs only where it was, so an undo at the same moment leaves the account whole.
import { and, eq, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./client";
import {
  accountEvents,
  accountIdentities,
  accounts,
  connectApps,
  connectUsers,
  emailCodeFailures,
  emailCodes,
  knownDevices,
  mailSettings,
  oidcClients,
  oidcConsents,
  oidcRefreshRotations,
  sessions,
  webauthnChallenges,
  webauthnCredentials,
} from "./schema";

/** What the erasure needs to know beyond the id, read before it (the rows naming them go in the batch). */
export interface Erasing {
  accountId: string;
  /** The account's email identities and recovery address (codes and failure counts are kept by address). */
  emails: string[];
  /** The OpenID apps it registered: other accounts' consents to them go too. */
  clientIds: string[];
  now: number;
}

type Statement = BatchItem<"sqlite">;

/** True only inside the batch that just wrote this account's tombstone. */
const tombstoned = (e: Erasing): SQL =>
  sql`exists (select 1 from accounts where id = ${e.accountId} and deleted_at = ${e.now})`;

/** Personal columns of an accounts row, emptied. */
const EMPTIED = {
  displayName: null,
  primaryBtc: null,
  displayIdentityKind: "did",
  recoveryEmail: null,
  recoverySetAt: null,
  mergedFrom: null,
} as const;

/** Per table naming an account: the statements removing the erased account's rows there. */
export const ERASURE: Record<string, (db: Db, e: Erasing) => Statement[]> = {
  accounts: (db, e) => [
    // Accounts merged into this one earlier: their rows are tombstones of the same person, emptied too.
    db
      .update(accounts)
      .set({ ...EMPTIED, deletedAt: e.now, updatedAt: e.now })
      .where(and(eq(accounts.mergedInto, e.accountId), tombstoned(e))),
  ],
  account_identities: (db, e) => [
    db.delete(accountIdentities).where(and(eq(accountIdentities.accountId, e.accountId), tombstoned(e))),
  ],
  sessions: (db, e) => [db.delete(sessions).where(and(eq(sessions.accountId, e.accountId), tombstoned(e)))],
  webauthn_credentials: (db, e) => [
    db.delete(webauthnCredentials).where(and(eq(webauthnCredentials.accountId, e.accountId), tombstoned(e))),
  ],
  webauthn_challenges: (db, e) => [
    db.delete(webauthnChallenges).where(and(eq(webauthnChallenges.accountId, e.accountId), tombstoned(e))),
  ],
  email_codes: (db, e) => [
    db
      .delete(emailCodes)
      .where(
        and(
          e.emails.length > 0
            ? or(eq(emailCodes.accountId, e.accountId), inArray(emailCodes.email, e.emails))
            : eq(emailCodes.accountId, e.accountId),
          tombstoned(e),
        ),
      ),
    ...(e.emails.length > 0
      ? [db.delete(emailCodeFailures).where(and(inArray(emailCodeFailures.email, e.emails), tombstoned(e)))]
      : []),
  ],
  account_events: (db, e) => [
    db.delete(accountEvents).where(and(eq(accountEvents.accountId, e.accountId), tombstoned(e))),
  ],
  oidc_consents: (db, e) => [
    db
      .delete(oidcConsents)
      .where(
        and(
          e.clientIds.length > 0
            ? or(eq(oidcConsents.accountId, e.accountId), inArray(oidcConsents.clientId, e.clientIds))
            : eq(oidcConsents.accountId, e.accountId),
          tombstoned(e),
        ),
      ),
  ],
  oidc_clients: (db, e) => [db.delete(oidcClients).where(and(eq(oidcClients.accountId, e.accountId), tombstoned(e)))],
  oidc_refresh_rotations: (db, e) => [
    db.delete(oidcRefreshRotations).where(and(eq(oidcRefreshRotations.accountId, e.accountId), tombstoned(e))),
  ],
  connect_apps: (db, e) => [
    db.delete(connectApps).where(and(eq(connectApps.ownerAccountId, e.accountId), tombstoned(e))),
  ],
  connect_users: (db, e) => [
    db.delete(connectUsers).where(and(eq(connectUsers.accountId, e.accountId), tombstoned(e))),
  ],
  known_devices: (db, e) => [
    db.delete(knownDevices).where(and(eq(knownDevices.accountId, e.accountId), tombstoned(e))),
  ],
  mail_settings: (db, e) => [
    db.delete(mailSettings).where(and(eq(mailSettings.accountId, e.accountId), tombstoned(e))),
  ],
};

/** The tombstone, written only while the deletion is still asked and due: the batch's first statement. */
export function tombstone(db: Db, e: Erasing) {
  return db
    .update(accounts)
    .set({ ...EMPTIED, deletionRequestedAt: null, deletedAt: e.now, updatedAt: e.now })
    .where(and(eq(accounts.id, e.accountId), lte(accounts.deletionDueAt, e.now), sql`${accounts.deletedAt} is null`))
    .returning({ id: accounts.id });
}

/** Every statement of the erasure, the tombstone first; one `db.batch` (one transaction) runs them. */
export function erasureBatch(db: Db, e: Erasing): [ReturnType<typeof tombstone>, ...Statement[]] {
  return [tombstone(db, e), ...Object.values(ERASURE).flatMap((step) => step(db, e))];
}
