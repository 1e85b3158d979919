// Devices (issue 46, item 1): the account's live sessions, one per browser (a roster holds one row per account),
// ended one at a time or all but this one; the browsers each account signed in from (a sign-in from one not seen in
// KNOWN_DEVICE_WINDOW_MS is a "new device"); and the notices a person turned off. Ending a row is what logout does:
// every host that accepts the cookie checks the row (DECISIONS 9), so the cookie stops working at once.
import { and, desc, eq, gt, ne } from "drizzle-orm";
import { DAY } from "../time";
import type { Db } from "./client";
import { knownDevices, mailSettings, sessions } from "./schema";
import type { SessionRow } from "./sessions";

/** A browser counts as seen by an account when it signed in to it within this window. */
export const KNOWN_DEVICE_WINDOW_MS = 90 * DAY;
/**
 * A known browser's last_seen_at is written again only once it is this old (issue 47: a row written per sign-in is
 * what D1 bills), so the window above counts from a sign-in at most a day earlier than the last.
 */
export const KNOWN_DEVICE_TOUCH_MS = DAY;

/** The account's live session rows, most recently seen first. */
export async function deviceSessions(db: Db, accountId: string, now: number): Promise<SessionRow[]> {
  return db
    .select()
    .from(sessions)
    .where(and(eq(sessions.accountId, accountId), gt(sessions.expiresAt, now)))
    .orderBy(desc(sessions.lastSeenAt));
}

/** Ends the account's session row `id`; true when there was one (another account's row is never touched). */
export async function endDeviceSession(db: Db, accountId: string, id: string): Promise<boolean> {
  const gone = await db
    .delete(sessions)
    .where(and(eq(sessions.id, id), eq(sessions.accountId, accountId)))
    .returning({ id: sessions.id });
  return gone.length > 0;
}

/** Ends every session row of the account but `keepId`; returns how many ended. */
export async function endOtherDeviceSessions(db: Db, accountId: string, keepId: string): Promise<number> {
  const gone = await db
    .delete(sessions)
    .where(and(eq(sessions.accountId, accountId), ne(sessions.id, keepId)))
    .returning({ id: sessions.id });
  return gone.length;
}

/**
 * Records that the browser `deviceHash` signed in to the account at `now` (a known one's time is written at most once
 * a KNOWN_DEVICE_TOUCH_MS). Returns true when that is news worth a mail: the account knew other browsers, and this
 * one is not among those seen within KNOWN_DEVICE_WINDOW_MS (an account's very first browser, e.g. the one that made
 * it, is not news).
 */
export async function noteDevice(db: Db, accountId: string, deviceHash: string, now: number): Promise<boolean> {
  const [seen, any] = await Promise.all([
    db
      .select({ lastSeenAt: knownDevices.lastSeenAt })
      .from(knownDevices)
      .where(and(eq(knownDevices.accountId, accountId), eq(knownDevices.deviceHash, deviceHash)))
      .get(),
    db
      .select({ hash: knownDevices.deviceHash })
      .from(knownDevices)
      .where(and(eq(knownDevices.accountId, accountId), ne(knownDevices.deviceHash, deviceHash)))
      .limit(1)
      .get(),
  ]);
  if (seen === undefined || now - seen.lastSeenAt >= KNOWN_DEVICE_TOUCH_MS) {
    await db
      .insert(knownDevices)
      .values({ accountId, deviceHash, firstSeenAt: now, lastSeenAt: now })
      .onConflictDoUpdate({ target: [knownDevices.accountId, knownDevices.deviceHash], set: { lastSeenAt: now } });
  }
  const recent = seen !== undefined && now - seen.lastSeenAt < KNOWN_DEVICE_WINDOW_MS;
  return !recent && (seen !== undefined || any !== undefined);
}

/** The notices a person may turn off (the others are about the account's safety and always sent). */
export interface MailPreferences {
  /** An app was allowed to sign the person in (an OpenID consent remembered). */
  app_allowed: boolean;
}

/** The account's preferences; no row means every notice is on. */
export async function mailPreferences(db: Db, accountId: string): Promise<MailPreferences> {
  const row = await db.select().from(mailSettings).where(eq(mailSettings.accountId, accountId)).get();
  return { app_allowed: row?.appAllowed ?? true };
}

export async function setMailPreferences(
  db: Db,
  accountId: string,
  prefs: MailPreferences,
  now: number,
): Promise<void> {
  const values = { appAllowed: prefs.app_allowed, updatedAt: now };
  await db
    .insert(mailSettings)
    .values({ accountId, ...values })
    .onConflictDoUpdate({ target: mailSettings.accountId, set: values });
}
