// Email one-time codes, pure parts (DECISIONS 8, 10 as refined by issues 26 and 27; security-and-reliability §1.3):
// six digits from the CSPRNG by rejection sampling (no modulo bias, leading zeros kept), each for one purpose and
// bound to one attempt, stored only as HMAC(key, purpose ‖ account ‖ email ‖ attempt ‖ code), compared in constant
// time. Limits: per code (5 wrong tries, surviving a resend), per address (a higher backstop whose lock states its end).

import { hex } from "@scure/base";
import { randomToken, utf8 } from "../crypto/digest";
import { hmacSha256, hmacSha256Verify } from "../crypto/hmac";

/** A code is valid this long after it was (re)sent. */
export const CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong tries per attempt (DECISIONS 10: per code; a resend keeps the count). */
export const MAX_FAILURES = 5;
/** An attempt (and the cookie naming it) lives this long from its start: within it, the browser's starts are resends. */
export const ATTEMPT_TTL_MS = 60 * 60 * 1000;
/** Starts per address and per IP per hour (DECISIONS 10); account-held codes spend the address's same budget. */
export const STARTS_PER_HOUR = 5;
/**
 * Recovery sign-in starts per address per day from one network (a bucket refilled over 24 h; review 3, item 10): the
 * last way into an account, so the fewest tries, and a stranger's starts spend only the stranger's network's.
 */
export const RECOVERY_STARTS_PER_DAY = 3;
/** Recovery sign-in starts per address per day from every network together: the backstop (mails, guesses). */
export const RECOVERY_STARTS_PER_ADDRESS_DAY = 10;
/** Recovery sign-in starts per IP per hour: one person recovering needs one or two. */
export const RECOVERY_STARTS_PER_IP_HOUR = 5;
/**
 * Wrong codes per address, over every browser's attempts, before the address is locked: four codes' worth, so one
 * attempt (a stranger's included) can never reach it, and a person who mistypes a code or two stays far below it.
 */
export const ADDRESS_FAILURE_LIMIT = 20;
/** The backstop's window, opened by the first wrong code; a lock ends when it does. */
export const ADDRESS_FAILURE_WINDOW_MS = 60 * 60 * 1000;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function newCode(): string {
  const limit = 4_294_967_296 - (4_294_967_296 % 1_000_000); // largest multiple of 10^6 below 2^32
  for (;;) {
    const [n] = crypto.getRandomValues(new Uint32Array(1));
    if (n !== undefined && n < limit) return String(n % 1_000_000).padStart(6, "0");
  }
}

/** An attempt id: 128 random bits, base64url (22 characters), so nobody can name another browser's attempt. */
export function newAttemptId(): string {
  return randomToken(16);
}

export const ATTEMPT_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * What a code proves (issue 27). A browser-held code's attempt is named by a cookie of the browser that asked:
 * `signin` (email sign-in) and `recovery` (a recovery sign-in, its row naming the account the address recovers).
 * An account-held code is asked for and checked by a session of `account_id`, which names its one attempt:
 * `link` (add the address as a sign-in identity), `reauth` (refresh sudo_at), `recovery_set` (the recovery address).
 */
export type BrowserPurpose = "signin" | "recovery";
export type AccountPurpose = "link" | "reauth" | "recovery_set";
export type CodePurpose = BrowserPurpose | AccountPurpose;

/**
 * The attempt of an account-held code: one per account and purpose, so a second start resends on it or replaces it
 * (the primary key decides). The colon keeps it out of ATTEMPT_ID's alphabet: no cookie can ever name one.
 */
export function accountAttempt(purpose: AccountPurpose, accountId: string): string {
  return `${purpose}:${accountId}`;
}

/** What a code is for besides its address and attempt; a sign-in code's is the default. */
export interface CodeScope {
  purpose: CodePurpose;
  accountId: string | null;
}
const SIGNIN: CodeScope = { purpose: "signin", accountId: null };

// Purpose and account are inside the MAC as well as the attempt: a code is worth nothing for another purpose, account
// or browser, even should a row's columns be mixed up. No field holds a newline (addresses are validated, ids are
// base64url, hex or `purpose:hex`), so the five lines cannot be re-split into other values.
const macInput = (scope: CodeScope, email: string, attempt: string, code: string) =>
  utf8(`${scope.purpose}\n${scope.accountId ?? ""}\n${email}\n${attempt}\n${code}`);

/** The stored form of a code: hex HMAC-SHA256(key, purpose ‖ account ‖ email ‖ attempt ‖ code, "\n"-separated). */
export async function codeMac(
  key: string,
  email: string,
  attempt: string,
  code: string,
  scope: CodeScope = SIGNIN,
): Promise<string> {
  return hex.encode(await hmacSha256(utf8(key), macInput(scope, email, attempt, code)));
}

/** Whether `code` is the one stored as `storedMac`, checked by the platform's HMAC verify (constant time). */
export async function codeMatches(
  key: string,
  input: { email: string; attempt: string; code: string } & Partial<CodeScope>,
  storedMac: string,
): Promise<boolean> {
  let mac: Uint8Array;
  try {
    mac = hex.decode(storedMac);
  } catch {
    return false;
  }
  const scope = { purpose: input.purpose ?? SIGNIN.purpose, accountId: input.accountId ?? null };
  return hmacSha256Verify(utf8(key), mac, macInput(scope, input.email, input.attempt, input.code));
}

/** The address's backstop counter as stored (email_code_failures). */
export interface AddressFailures {
  failures: number;
  since: number;
}

/** When the address's lock ends, or undefined when it is not locked at `now`. */
export function addressLockEnd(row: AddressFailures | undefined, now: number): number | undefined {
  if (!row || row.failures < ADDRESS_FAILURE_LIMIT) return undefined;
  const end = row.since + ADDRESS_FAILURE_WINDOW_MS;
  return now < end ? end : undefined;
}

/** Why a try was not compared: the route maps each to a reason with its own detail. */
export type Refusal =
  | { kind: "not_this_browser" }
  | { kind: "address_locked"; until: number }
  | { kind: "spent" }
  | { kind: "expired" }
  | { kind: "changed" };

/**
 * Why the counting UPDATE matched nothing, from what it read: the address lock first (nothing is compared while
 * it holds), then the attempt as this browser names it.
 */
export function refusalOf(
  attempt: { failures: number; expiresAt: number } | undefined,
  address: AddressFailures | undefined,
  now: number,
): Refusal {
  const until = addressLockEnd(address, now);
  if (until !== undefined) return { kind: "address_locked", until };
  if (!attempt) return { kind: "not_this_browser" };
  if (attempt.failures >= MAX_FAILURES) return { kind: "spent" };
  if (now >= attempt.expiresAt) return { kind: "expired" };
  // The row changed between the UPDATE and this read (a lock that just ended): nothing was counted; try again.
  return { kind: "changed" };
}
