// Email-code attempts in D1 (email_codes, email_code_failures): one row per attempt (a browser that asked, or an
// account and purpose), its wrong tries counted before its code is compared, and the per-address backstop over all
// of them. Each limit is enforced by one conditional statement, never by a read-then-write, so concurrent requests
// cannot exceed it. Every statement that finds an attempt names its purpose too: a code asked for one purpose is
// never counted, compared or spent by another (issue 27).
import { and, eq, gt, gte, lt, lte, notExists, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { emailCodeFailures, emailCodes } from "../db/schema";
import {
  ADDRESS_FAILURE_LIMIT,
  ADDRESS_FAILURE_WINDOW_MS,
  ATTEMPT_TTL_MS,
  CODE_TTL_MS,
  type CodePurpose,
  MAX_FAILURES,
  type Refusal,
  refusalOf,
} from "./email-code";

/** An attempt as a statement finds it: its id and its purpose, always together. */
export interface AttemptKey {
  attempt: string;
  purpose: CodePurpose;
}

const keyed = (key: AttemptKey) => and(eq(emailCodes.id, key.attempt), eq(emailCodes.purpose, key.purpose));

interface Sent extends AttemptKey {
  email: string;
  /** The account asking (an account-held code), the account the address recovers (`recovery`), else null. */
  accountId: string | null;
  codeMac: string;
  now: number;
}

/**
 * A resend: the browser's live attempt for this address gets the new code and 10 more minutes, and keeps its wrong
 * tries (DECISIONS 10). False when there is none to resend on (unknown, another address, an hour old, or spent).
 */
export async function resendCode(db: Db, sent: Sent): Promise<boolean> {
  const rows = await db
    .update(emailCodes)
    .set({ codeMac: sent.codeMac, accountId: sent.accountId, expiresAt: sent.now + CODE_TTL_MS })
    .where(
      and(
        keyed(sent),
        eq(emailCodes.email, sent.email),
        gt(emailCodes.createdAt, sent.now - ATTEMPT_TTL_MS),
        lt(emailCodes.failures, MAX_FAILURES),
      ),
    )
    .returning({ id: emailCodes.id });
  return rows.length > 0;
}

/**
 * A new attempt, and in the same batch the address's attempts that are over an hour old and whose code has expired
 * (bounded housekeeping: starts per address are limited, so this deletes at most a handful of rows; a dead row is
 * dead whatever its purpose, and nothing here compares or spends a code). An account-held attempt's id is fixed
 * (`accountAttempt`), so a new one replaces the account's previous attempt of that purpose, which `resendCode` just
 * found spent, over an hour old or for another address; a browser's id is 128 random bits and never collides.
 */
export async function openAttempt(db: Db, sent: Sent): Promise<void> {
  const fresh = {
    email: sent.email,
    purpose: sent.purpose,
    accountId: sent.accountId,
    codeMac: sent.codeMac,
    expiresAt: sent.now + CODE_TTL_MS,
    failures: 0,
    createdAt: sent.now,
  };
  await db.batch([
    db
      .delete(emailCodes)
      .where(
        and(
          eq(emailCodes.email, sent.email),
          lte(emailCodes.createdAt, sent.now - ATTEMPT_TTL_MS),
          lte(emailCodes.expiresAt, sent.now),
        ),
      ),
    db
      .insert(emailCodes)
      .values({ id: sent.attempt, ...fresh })
      .onConflictDoUpdate({ target: emailCodes.id, set: fresh }),
  ]);
}

const addressLocked = (db: Db, email: string, now: number) =>
  db
    .select({ one: sql`1` })
    .from(emailCodeFailures)
    .where(
      and(
        eq(emailCodeFailures.email, email),
        gte(emailCodeFailures.failures, ADDRESS_FAILURE_LIMIT),
        gt(emailCodeFailures.since, now - ADDRESS_FAILURE_WINDOW_MS),
      ),
    );

interface Try extends AttemptKey {
  email: string;
  now: number;
}

/** What a counted try compares against: the stored MAC and the account the row was asked for. */
export interface Counted {
  codeMac: string;
  failures: number;
  accountId: string | null;
}

/**
 * Counts a try before its code is compared, in one conditional UPDATE … RETURNING: only while the attempt has tries
 * left, its code is unexpired and the address is not locked. Of any number of concurrent tries on one attempt, at
 * most MAX_FAILURES get its MAC back; undefined means nothing may be compared (`whyRefused` says why).
 */
export async function countTry(db: Db, input: Try): Promise<Counted | undefined> {
  const [row] = await db
    .update(emailCodes)
    .set({ failures: sql`${emailCodes.failures} + 1` })
    .where(
      and(
        keyed(input),
        eq(emailCodes.email, input.email),
        lt(emailCodes.failures, MAX_FAILURES),
        gt(emailCodes.expiresAt, input.now),
        notExists(addressLocked(db, input.email, input.now)),
      ),
    )
    .returning({ codeMac: emailCodes.codeMac, failures: emailCodes.failures, accountId: emailCodes.accountId });
  return row;
}

/** Why `countTry` matched nothing, read after it (the read only chooses the answer; it decides nothing). */
export async function whyRefused(db: Db, input: Try): Promise<Refusal> {
  const [attempts, addresses] = await db.batch([
    db
      .select({ failures: emailCodes.failures, expiresAt: emailCodes.expiresAt })
      .from(emailCodes)
      .where(and(keyed(input), eq(emailCodes.email, input.email))),
    db
      .select({ failures: emailCodeFailures.failures, since: emailCodeFailures.since })
      .from(emailCodeFailures)
      .where(eq(emailCodeFailures.email, input.email)),
  ]);
  return refusalOf(attempts[0], addresses[0], input.now);
}

/**
 * Adds a wrong code to the address's backstop: the window opens with the first wrong code and, once over, the next
 * one opens a new window. Counted after the compare (a right code must not count), so concurrent wrong codes can
 * pass the limit by at most what the live attempts still allow, each of which is held to MAX_FAILURES by `countTry`.
 */
export async function recordWrongCode(db: Db, email: string, now: number): Promise<void> {
  const inWindow = sql`${emailCodeFailures.since} > ${now - ADDRESS_FAILURE_WINDOW_MS}`;
  await db
    .insert(emailCodeFailures)
    .values({ email, failures: 1, since: now })
    .onConflictDoUpdate({
      target: emailCodeFailures.email,
      set: {
        failures: sql`case when ${inWindow} then ${emailCodeFailures.failures} + 1 else 1 end`,
        since: sql`case when ${inWindow} then ${emailCodeFailures.since} else ${now} end`,
      },
    });
}

/** Single use: of concurrent verifies with the right code, only one deletes the attempt. */
export async function consumeAttempt(db: Db, key: AttemptKey, codeMac: string): Promise<boolean> {
  const rows = await db
    .delete(emailCodes)
    .where(and(keyed(key), eq(emailCodes.codeMac, codeMac)))
    .returning({ id: emailCodes.id });
  return rows.length > 0;
}
