// Hardware keys and their challenges (issue 27). A key row holds the credential's public key, counter and labels,
// never anything secret. A challenge is used once: consuming it is one DELETE … RETURNING, so of a replay or two
// concurrent answers exactly one gets the row. Each change to a key is written with its account-log line in one batch.
import { and, asc, eq, gt, isNull, lt, notExists, sql } from "drizzle-orm";
import type { NewKey, StoredKey } from "../auth/webauthn/ceremony";
import { CHALLENGE_TTL_MS, knownTransports } from "../auth/webauthn/config";
import { AppError } from "../errors";
import { type AccountChange, accountEventIfChanged } from "./account-events";
import type { Db } from "./client";
import { webauthnChallenges, webauthnCredentials } from "./schema";

export type KeyRow = typeof webauthnCredentials.$inferSelect;
export type ChallengePurpose = "register" | "signin" | "stepup";

export interface ChallengeInput {
  challenge: string;
  purpose: ChallengePurpose;
  /** The account and session row a registration or step-up is for; null for a passkey sign-in. */
  accountId: string | null;
  sessionId: string | null;
  now: number;
}

/** Stores an issued challenge for CHALLENGE_TTL_MS, clearing the expired ones on the way (the table stays small). */
export async function storeWebauthnChallenge(db: Db, input: ChallengeInput): Promise<void> {
  const { now, ...row } = input;
  await db.batch([
    db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, now)),
    db.insert(webauthnChallenges).values({ ...row, expiresAt: now + CHALLENGE_TTL_MS, createdAt: now }),
  ]);
}

/**
 * The unexpired challenge of this purpose (and, for registration and step-up, this session row), removed as it is
 * read; undefined when unknown, expired, used, or issued for another purpose or session.
 */
export async function consumeWebauthnChallenge(
  db: Db,
  input: Omit<ChallengeInput, "accountId">,
): Promise<typeof webauthnChallenges.$inferSelect | undefined> {
  const t = webauthnChallenges;
  const rows = await db
    .delete(t)
    .where(
      and(
        eq(t.challenge, input.challenge),
        eq(t.purpose, input.purpose),
        input.sessionId === null ? isNull(t.sessionId) : eq(t.sessionId, input.sessionId),
        gt(t.expiresAt, input.now),
      ),
    )
    .returning();
  return rows[0];
}

export function accountKeys(db: Db, accountId: string): Promise<KeyRow[]> {
  return db
    .select()
    .from(webauthnCredentials)
    .where(eq(webauthnCredentials.accountId, accountId))
    .orderBy(asc(webauthnCredentials.createdAt), asc(webauthnCredentials.id));
}

export function keyById(db: Db, id: string): Promise<KeyRow | undefined> {
  return db.select().from(webauthnCredentials).where(eq(webauthnCredentials.id, id)).get();
}

/** A row as the ceremony needs it (the transports column is a JSON array the registration wrote). */
export function storedKey(row: KeyRow): StoredKey {
  const parsed: unknown = row.transports ? JSON.parse(row.transports) : [];
  const names = Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === "string") : [];
  return { id: row.id, publicKey: row.publicKey, counter: row.counter, transports: knownTransports(names) };
}

/**
 * Registers a verified key with its log line; a credential id already stored (here or anywhere) is refused.
 * `onlyFirst`: the session proved no key (a fresh sudo, not a step-up), so the key is stored only while the account
 * has none, decided in the insert itself: of two first keys registered at once, the second is refused
 * (`step_up_required`, review 3 item 5) rather than added beside a key its session never proved.
 */
export async function addKey(
  db: Db,
  key: NewKey,
  name: string,
  change: AccountChange,
  onlyFirst = false,
): Promise<KeyRow> {
  const { accountId, sessionId, now } = change;
  const k = webauthnCredentials;
  const values = {
    id: key.id,
    accountId,
    publicKey: key.publicKey,
    counter: key.counter,
    transports: JSON.stringify(key.transports),
    deviceType: key.deviceType,
    backedUp: key.backedUp,
    name,
    createdAt: now,
    lastUsedAt: null,
  };
  // Every column in table order, as literals, selected only while the account holds no key.
  const firstOnly = db
    .select({
      id: sql<string>`${values.id}`.as("id"),
      accountId: sql<string>`${accountId}`.as("account_id"),
      publicKey: sql<string>`${values.publicKey}`.as("public_key"),
      counter: sql<number>`${values.counter}`.as("counter"),
      transports: sql<string>`${values.transports}`.as("transports"),
      deviceType: sql<string>`${values.deviceType}`.as("device_type"),
      backedUp: sql<boolean>`${values.backedUp ? 1 : 0}`.as("backed_up"),
      name: sql<string>`${name}`.as("name"),
      createdAt: sql<number>`${now}`.as("created_at"),
      lastUsedAt: sql<number | null>`null`.as("last_used_at"),
    })
    .from(sql`(select 1)`)
    .where(notExists(db.select({ one: sql`1` }).from(k).where(eq(k.accountId, accountId))));
  const insert = onlyFirst ? db.insert(k).select(firstOnly).returning() : db.insert(k).values(values).returning();
  const line = {
    accountId,
    sessionId,
    now,
    eventType: "hardware_key.registered" as const,
    detail: { credential_id: key.id, name, device_type: key.deviceType },
  };
  let rows: KeyRow[];
  try {
    [rows] = await db.batch([insert, accountEventIfChanged(db, line)]);
  } catch (err) {
    // The primary key decides (no read first): the same authenticator credential registered twice.
    if (/UNIQUE|PRIMARY KEY|constraint failed/i.test(String(err)))
      throw new AppError("webauthn_already_registered", { detail: "that credential is already registered" });
    throw err;
  }
  const row = rows[0];
  if (!row) throw new AppError("step_up_required", { detail: "the account has a key now: step up with it first" });
  return row;
}

/** Renames one of the account's keys; undefined when the account has no such key. */
export async function renameKey(db: Db, id: string, name: string, change: AccountChange): Promise<KeyRow | undefined> {
  const k = webauthnCredentials;
  const [rows] = await db.batch([
    db
      .update(k)
      .set({ name })
      .where(and(eq(k.id, id), eq(k.accountId, change.accountId)))
      .returning(),
    accountEventIfChanged(db, { ...change, eventType: "hardware_key.renamed", detail: { credential_id: id, name } }),
  ]);
  return rows[0];
}

/** Deletes one of the account's keys; undefined when the account has no such key. */
export async function revokeKey(db: Db, id: string, change: AccountChange): Promise<KeyRow | undefined> {
  const k = webauthnCredentials;
  const [rows] = await db.batch([
    db
      .delete(k)
      .where(and(eq(k.id, id), eq(k.accountId, change.accountId)))
      .returning(),
    accountEventIfChanged(db, { ...change, eventType: "hardware_key.revoked", detail: { credential_id: id } }),
  ]);
  return rows[0];
}

/**
 * Records a verified assertion: the counter only moves forward (a zero counter, which synced passkeys keep, stays
 * zero), in one conditional UPDATE, so of two assertions with the same counter (a cloned key, a race) one loses.
 * `line`: the account-log line to write with it (a step-up's), only if the update landed. False when it lost.
 */
export async function recordAssertion(
  db: Db,
  input: { id: string; counter: number; now: number },
  line?: Parameters<typeof accountEventIfChanged>[1],
): Promise<boolean> {
  const k = webauthnCredentials;
  const forward = input.counter === 0 ? eq(k.counter, 0) : lt(k.counter, input.counter);
  const update = db
    .update(k)
    .set({ counter: input.counter, lastUsedAt: input.now })
    .where(and(eq(k.id, input.id), forward))
    .returning({ id: k.id });
  if (!line) return (await update).length > 0;
  const [rows] = await db.batch([update, accountEventIfChanged(db, line)]);
  return rows.length > 0;
}
