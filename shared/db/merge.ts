// Merging two accounts one person holds (issue 27; auth-core's `merged_from`): everything that reaches the absorbed
// account moves to the surviving one in one batch (one transaction): its identities, hardware keys, Connect apps
// and users, its OpenID apps and the allowances it gave apps (scopes merged with the survivor's own for an app both
// allowed), its log, and its recovery address when the survivor has none. The absorbed account keeps its row,
// marked `merged_into`, so its did_oc stays known, and signs nobody in again: its sessions everywhere are deleted.
// The survivor's `merged_from` names it (and whatever it had absorbed before). Its primary_btc does not change.
// The OpenID grants the library holds in KV for the absorbed account are revoked by the route, after this batch.
import { eq, type SQL, sql } from "drizzle-orm";
import { accountEvent } from "./account-events";
import type { AccountRow } from "./accounts";
import type { Db } from "./client";
import {
  accountEvents,
  accountIdentities,
  accounts,
  connectApps,
  connectUsers,
  emailCodes,
  oidcClients,
  oidcConsents,
  sessions,
  webauthnCredentials,
} from "./schema";

const didList = (json: string | null): string[] => {
  const parsed: unknown = json ? JSON.parse(json) : [];
  return Array.isArray(parsed) ? parsed.filter((d): d is string => typeof d === "string") : [];
};

/** The survivor's scopes for an app, with each of `scopes` it lacks appended (one SQL expression: no read first). */
const withScopes = (scopes: readonly string[]): SQL =>
  scopes.reduce<SQL>(
    (merged, scope) =>
      sql`${merged} || (case when instr(' ' || ${oidcConsents.scopes} || ' ', ${` ${scope} `}) > 0 then '' else ${` ${scope}`} end)`,
    sql`${oidcConsents.scopes}`,
  );

/**
 * Merges `absorbed` into `survivor` in one batch. The absorbed account's allowances are read first; each becomes the
 * survivor's, or widens the survivor's own allowance for that app in the same statement.
 */
export async function mergeAccounts(
  db: Db,
  input: { survivor: AccountRow; absorbed: AccountRow; sessionId: string; now: number },
): Promise<void> {
  const { survivor, absorbed, now } = input;
  const mergedFrom = [...new Set([...didList(survivor.mergedFrom), absorbed.didOc, ...didList(absorbed.mergedFrom)])];
  const from = absorbed.id;
  const to = survivor.id;
  const consents = await db.select().from(oidcConsents).where(eq(oidcConsents.accountId, from));
  const movedConsents = consents.map((consent) =>
    db
      .insert(oidcConsents)
      .values({ ...consent, accountId: to })
      .onConflictDoUpdate({
        target: [oidcConsents.accountId, oidcConsents.clientId],
        set: { scopes: withScopes(consent.scopes.split(" ").filter(Boolean)) },
      }),
  );
  await db.batch([
    db.update(accountIdentities).set({ accountId: to }).where(eq(accountIdentities.accountId, from)),
    db.update(webauthnCredentials).set({ accountId: to }).where(eq(webauthnCredentials.accountId, from)),
    db.update(connectApps).set({ ownerAccountId: to }).where(eq(connectApps.ownerAccountId, from)),
    db.update(connectUsers).set({ accountId: to }).where(eq(connectUsers.accountId, from)),
    db.update(accountEvents).set({ accountId: to }).where(eq(accountEvents.accountId, from)),
    db.update(oidcClients).set({ accountId: to }).where(eq(oidcClients.accountId, from)),
    ...movedConsents,
    db.delete(oidcConsents).where(eq(oidcConsents.accountId, from)),
    db.delete(emailCodes).where(eq(emailCodes.accountId, from)),
    db.delete(sessions).where(eq(sessions.accountId, from)),
    // The absorbed account's recovery address first leaves it (the column is unique), then, if the survivor has
    // none, becomes the survivor's.
    db
      .update(accounts)
      .set({ mergedInto: to, recoveryEmail: null, recoverySetAt: null, updatedAt: now })
      .where(eq(accounts.id, from)),
    db
      .update(accounts)
      .set({
        mergedFrom: JSON.stringify(mergedFrom),
        recoveryEmail: sql`coalesce(${accounts.recoveryEmail}, ${absorbed.recoveryEmail})`,
        recoverySetAt: sql`case when ${accounts.recoveryEmail} is null then ${absorbed.recoverySetAt} else ${accounts.recoverySetAt} end`,
        updatedAt: now,
      })
      .where(eq(accounts.id, to)),
    accountEvent(db, {
      accountId: to,
      eventType: "account.merged",
      sessionId: input.sessionId,
      detail: { from: absorbed.didOc },
      now,
    }),
  ]);
}
