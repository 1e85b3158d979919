// The provider's rows in the auth database (issue 33; d1-migrations/0015): who owns each client and whether it was
// revoked, the consents accounts gave, the nonces that already issued a code, and the account facts claims need.
import { and, desc, eq, isNull, lt } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import {
  accountIdentities,
  accounts,
  oidcClients,
  oidcCodeExchanges,
  oidcConsents,
  oidcNonces,
} from "../../../../shared/db/schema";
import type { AccountFacts } from "./claims";

export type ClientRow = typeof oidcClients.$inferSelect;

/** A nonce is remembered for as long as a code it issued could be exchanged and its ID token checked. */
export const NONCE_MEMORY_MS = 24 * 3600 * 1000;

/**
 * The account as the claims see it, or undefined when it is gone: no row, or merged away (its row stays, marked
 * `merged_into`, and must answer for nothing: every provider path refuses an account without facts).
 */
export async function accountFacts(db: Db, accountId: string): Promise<AccountFacts | undefined> {
  const account = await db.select().from(accounts).where(eq(accounts.id, accountId)).get();
  if (!account || account.mergedInto !== null) return undefined;
  const email = await db
    .select({ value: accountIdentities.value })
    .from(accountIdentities)
    .where(and(eq(accountIdentities.accountId, accountId), eq(accountIdentities.kind, "email")))
    .get();
  return {
    didOc: account.didOc,
    displayName: account.displayName,
    email: email?.value ?? null,
    primaryBtc: account.primaryBtc,
  };
}

export const liveClient = (db: Db, clientId: string) =>
  db
    .select()
    .from(oidcClients)
    .where(and(eq(oidcClients.clientId, clientId), isNull(oidcClients.revokedAt)))
    .get();

export const clientsOf = (db: Db, accountId: string) =>
  db
    .select()
    .from(oidcClients)
    .where(and(eq(oidcClients.accountId, accountId), isNull(oidcClients.revokedAt)))
    .orderBy(desc(oidcClients.createdAt))
    .limit(100);

/** The scopes the account allowed the client, or undefined when it has not (or took it back). */
async function allowedScopes(db: Db, accountId: string, clientId: string): Promise<string[] | undefined> {
  const row = await db
    .select({ scopes: oidcConsents.scopes })
    .from(oidcConsents)
    .where(and(eq(oidcConsents.accountId, accountId), eq(oidcConsents.clientId, clientId)))
    .get();
  return row?.scopes.split(" ").filter(Boolean);
}

/** Whether the account already allowed the client every one of `scopes`. */
export async function consentCovers(db: Db, accountId: string, clientId: string, scopes: readonly string[]) {
  const allowed = await allowedScopes(db, accountId, clientId);
  return allowed !== undefined && scopes.every((scope) => allowed.includes(scope));
}

/** Remembers the account's consent to `scopes` (added to what it allowed before). */
export async function rememberConsent(
  db: Db,
  accountId: string,
  clientId: string,
  scopes: readonly string[],
  now: number,
) {
  const before = (await allowedScopes(db, accountId, clientId)) ?? [];
  const all = [...new Set([...before, ...scopes])].join(" ");
  await db
    .insert(oidcConsents)
    .values({ accountId, clientId, scopes: all, createdAt: now })
    .onConflictDoUpdate({ target: [oidcConsents.accountId, oidcConsents.clientId], set: { scopes: all } });
}

export const consentsOf = (db: Db, accountId: string) =>
  db
    .select({
      clientId: oidcConsents.clientId,
      scopes: oidcConsents.scopes,
      createdAt: oidcConsents.createdAt,
      name: oidcClients.name,
      logoUri: oidcClients.logoUri,
    })
    .from(oidcConsents)
    .innerJoin(oidcClients, eq(oidcClients.clientId, oidcConsents.clientId))
    .where(and(eq(oidcConsents.accountId, accountId), isNull(oidcClients.revokedAt)))
    .orderBy(desc(oidcConsents.createdAt))
    .limit(100);

/** Whether the account still allows the client (any scope): a grant outlives neither the app nor the allowance. */
export async function stillAllowed(db: Db, accountId: string, clientId: string): Promise<boolean> {
  const [client, allowed] = await Promise.all([liveClient(db, clientId), allowedScopes(db, accountId, clientId)]);
  return client !== undefined && allowed !== undefined;
}

export const forgetConsent = (db: Db, accountId: string, clientId: string) =>
  db.delete(oidcConsents).where(and(eq(oidcConsents.accountId, accountId), eq(oidcConsents.clientId, clientId)));

export async function nonceUsed(db: Db, clientId: string, nonce: string, now: number): Promise<boolean> {
  const row = await db
    .select({ expiresAt: oidcNonces.expiresAt })
    .from(oidcNonces)
    .where(and(eq(oidcNonces.clientId, clientId), eq(oidcNonces.nonce, nonce)))
    .get();
  return row !== undefined && row.expiresAt > now;
}

/**
 * Records the nonce as used, atomically: false when it already was (two authorizations racing with one nonce get
 * one code between them). Expired nonces of the client are deleted first, so the table stays small.
 */
export async function useNonce(db: Db, clientId: string, nonce: string, now: number): Promise<boolean> {
  await db.delete(oidcNonces).where(and(eq(oidcNonces.clientId, clientId), lt(oidcNonces.expiresAt, now)));
  const inserted = await db
    .insert(oidcNonces)
    .values({ clientId, nonce, expiresAt: now + NONCE_MEMORY_MS })
    .onConflictDoNothing()
    .returning({ nonce: oidcNonces.nonce });
  return inserted.length === 1;
}

/** A code's exchange is remembered well past the 10 minutes its grant's code lives and KV's minute of staleness. */
export const CODE_CLAIM_MEMORY_MS = 24 * 3600 * 1000;

/**
 * Claims the one exchange of the grant's code, atomically in D1: false when it was claimed before. The library's
 * own single-use check reads KV, which another location may answer a minute stale, so two exchanges of one code
 * could both pass it; only the first claim here stands. Rows past their memory are deleted first.
 */
export async function claimCodeExchange(db: Db, grantId: string, now: number): Promise<boolean> {
  const [, inserted] = await db.batch([
    db.delete(oidcCodeExchanges).where(lt(oidcCodeExchanges.exchangedAt, now - CODE_CLAIM_MEMORY_MS)),
    db
      .insert(oidcCodeExchanges)
      .values({ grantId, exchangedAt: now })
      .onConflictDoNothing()
      .returning({ grantId: oidcCodeExchanges.grantId }),
  ]);
  return inserted.length === 1;
}
