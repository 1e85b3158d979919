// Session rows and rosters (service-spec "Session rows and roster"). A row is named by sha256(jti) of the JWT
// last issued for it; issuing a new JWT for a row rotates that hash, so the row's older JWTs stop being live. The
// table is keyed by (account_id, token_hash) without a rowid (0022): every statement here names the account, so
// each is a lookup of the key or of its prefix, and a new row writes the row and its roster entry only.
import { and, desc, eq, gt } from "drizzle-orm";
import { randomToken, sha256Hex } from "../crypto/digest";
import { DAY } from "../time";
import type { AccountRow } from "./accounts";
import type { Db } from "./client";
import { accounts, sessions } from "./schema";

export type SessionRow = typeof sessions.$inferSelect;

/** Session rows expire 30 days after creation (service-spec Limits). */
export const SESSION_LIFETIME_MS = 30 * DAY;
/** Accounts one browser may hold at once; a further add-account sign-in is refused with `roster_full`. */
export const ROSTER_CAP = 10;
/** last_seen_at is written at most this often (a conditional write, after the answer), never on every request. */
export const TOUCH_INTERVAL_MS = 5 * 60 * 1000;

export interface IssuedSession {
  row: SessionRow;
  jti: string;
}

/** How an identity of the account was proved (the session's `auth_method`, the account log; later OIDC's `amr`). */
export type AuthMethod = "bip322" | "email" | "provider" | "passkey" | "recovery";

async function freshJti(): Promise<{ jti: string; tokenHash: string }> {
  const jti = randomToken(18);
  return { jti, tokenHash: await sha256Hex(jti) };
}

/**
 * A successful sign-in: a new row, or, when the account already has a row in this roster (live or expired),
 * that row re-authenticated in place, so no duplicate ever exists (the unique index decides, not a read).
 */
export async function signInSession(
  db: Db,
  input: {
    accountId: string;
    rosterId: string;
    now: number;
    method: AuthMethod;
    stepUp?: boolean;
    /** The browser's User-Agent and approximate place at this sign-in (the devices list; issue 46). */
    device?: { userAgent: string | null; place: string | null };
  },
): Promise<IssuedSession> {
  const { jti, tokenHash } = await freshJti();
  const { now } = input;
  // A passkey sign-in with user verification is also a step-up (`stepUp`): step_up_at with sudo_at. Any other sign-in
  // keeps no step-up from before (a re-sign-in of a roster account replaces the row's proofs).
  const fresh = {
    tokenHash,
    authenticatedAt: now,
    authMethod: input.method,
    steppedUpAt: input.stepUp === true && input.method === "passkey" ? now : null,
    createdAt: now,
    expiresAt: now + SESSION_LIFETIME_MS,
    lastSeenAt: now,
    userAgent: input.device?.userAgent ?? null,
    place: input.device?.place ?? null,
  };
  const rows = await db
    .insert(sessions)
    .values({ id: crypto.randomUUID(), accountId: input.accountId, rosterId: input.rosterId, ...fresh })
    .onConflictDoUpdate({ target: [sessions.rosterId, sessions.accountId], set: fresh })
    .returning();
  const row = rows[0];
  if (!row) throw new Error("session upsert returned no row");
  return { row, jti };
}

/** The row `row` names: its account (the key's prefix) and its id. */
const named = (row: Pick<SessionRow, "accountId" | "id">) =>
  and(eq(sessions.accountId, row.accountId), eq(sessions.id, row.id));

/** A new JWT for an existing live row (switch, logout promotion, profile change): same expiry, new jti. */
export async function reissueSession(db: Db, row: SessionRow, now: number): Promise<IssuedSession | undefined> {
  const { jti, tokenHash } = await freshJti();
  const rows = await db
    .update(sessions)
    .set({ tokenHash, lastSeenAt: now })
    .where(and(named(row), gt(sessions.expiresAt, now)))
    .returning();
  return rows[0] ? { row: rows[0], jti } : undefined;
}

/**
 * A re-authentication (issue 27): a fresh proof of one of the account's identities (or a hardware key, which is
 * also a step-up) for this live row, with a new JWT (new jti), so the cookie carries the new `sudo_at`/`step_up_at`.
 */
export async function reauthenticateSession(
  db: Db,
  row: SessionRow,
  input: { method: AuthMethod; stepUp: boolean; now: number },
): Promise<IssuedSession | undefined> {
  const { jti, tokenHash } = await freshJti();
  const { now } = input;
  const rows = await db
    .update(sessions)
    .set({
      tokenHash,
      lastSeenAt: now,
      authenticatedAt: now,
      authMethod: input.method,
      ...(input.stepUp && { steppedUpAt: now }),
    })
    .where(and(named(row), gt(sessions.expiresAt, now)))
    .returning();
  return rows[0] ? { row: rows[0], jti } : undefined;
}

/**
 * The live row of account `accountId` (the JWT's `sub`) that a JWT's jti names, with the account's primary Bitcoin
 * address (one read for both, one key lookup): a token for one account never finds another's row.
 */
export async function liveSessionByJti(
  db: Db,
  accountId: string,
  jti: string,
  now: number,
): Promise<{ session: SessionRow; primaryBtc: string | null } | undefined> {
  const tokenHash = await sha256Hex(jti);
  return db
    .select({ session: sessions, primaryBtc: accounts.primaryBtc })
    .from(sessions)
    .leftJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(and(eq(sessions.accountId, accountId), eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, now)))
    .get();
}

/** The live rows of a roster with their accounts, most recently seen first. */
export async function rosterMembers(
  db: Db,
  rosterId: string,
  now: number,
): Promise<{ session: SessionRow; account: AccountRow }[]> {
  return db
    .select({ session: sessions, account: accounts })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(and(eq(sessions.rosterId, rosterId), gt(sessions.expiresAt, now)))
    .orderBy(desc(sessions.lastSeenAt));
}

/** Whether the row's last_seen_at is old enough to write again. */
export const touchDue = (row: SessionRow, now: number): boolean => now - row.lastSeenAt >= TOUCH_INTERVAL_MS;

export async function touchSession(db: Db, row: SessionRow, now: number): Promise<void> {
  if (!touchDue(row, now)) return;
  await db.update(sessions).set({ lastSeenAt: now }).where(named(row));
}

export async function deleteSession(db: Db, row: Pick<SessionRow, "accountId" | "id">): Promise<void> {
  await db.delete(sessions).where(named(row));
}

export async function deleteRoster(db: Db, rosterId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.rosterId, rosterId));
}
