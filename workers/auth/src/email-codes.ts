// The steps every email-code route shares (sign-in, recovery sign-in, link, re-authentication, recovery address):
// asking for a code (a resend on the live attempt, else a new attempt) and checking one (counted before it is
// compared, spent once), with their answers on the wire, for either holder of the attempt (a browser's cookie or a
// signed-in account). The routes differ only in their limits and mails, and in what a right code then does. The
// account-held codes' two steps (link, re-authentication, recovery address) are in account-email-codes.ts.
import type { Context } from "hono";
import {
  type AccountPurpose,
  accountAttempt,
  type BrowserPurpose,
  type CodePurpose,
  codeMac,
  codeMatches,
  MAX_FAILURES,
  newAttemptId,
  newCode,
  type Refusal,
  STARTS_PER_HOUR,
} from "../../../shared/auth/email-code";
import {
  CODE_COOKIES,
  clearedEmailCodeCookie,
  emailCodeCookie,
  readEmailCodeCookie,
} from "../../../shared/auth/email-code-cookie";
import {
  type AttemptKey,
  consumeAttempt,
  countTry,
  openAttempt,
  recordWrongCode,
  resendCode,
  whyRefused,
} from "../../../shared/auth/email-code-store";
import { type Db, orm } from "../../../shared/db/client";
import { AppError } from "../../../shared/errors";
import { clientIpKey } from "../../../shared/http/client-ip";
import { errorFields } from "../../../shared/http/request-line";
import { logEvent } from "../../../shared/http/request-log";
import { type Mail, mailerConfigured, sendMail } from "../../../shared/mail/mailer";
import { takeNamed } from "../../../shared/rate-limit/middleware";
import { HOUR } from "../../../shared/time";
import type { AuthBindings, AuthEnv } from "./env";

const HOURLY = { capacity: STARTS_PER_HOUR, windowMs: HOUR };

/** The reasons a code check answers (a wrong, expired or spent code; no EMAIL_CODE_KEY), for the routes' lists. */
export const CODE_CHECK_ERRORS = [
  "email_code_invalid",
  "email_code_expired",
  "email_code_locked",
  "mailer_not_configured",
] as const;
const BROWSER_HELD: Record<CodePurpose, boolean> = {
  signin: true,
  recovery: true,
  link: false,
  reauth: false,
  recovery_set: false,
};
const ASK_HERE = "no code was asked for this address in this browser (or it was used): ask for one here";
const ASK_AGAIN = "no code was asked for this address by this account (or it was used): ask for one";

/** The HMAC key, or 503 before anything is stored or mailed. */
export function codeKey(env: AuthBindings): string {
  if (!env.EMAIL_CODE_KEY || env.EMAIL_CODE_KEY.length < 16)
    throw new AppError("mailer_not_configured", { detail: "EMAIL_CODE_KEY is not set" });
  return env.EMAIL_CODE_KEY;
}

/**
 * The address's hourly mail budget and the caller's, shared by every code the address or IP asks for (sign-in,
 * link, re-authentication, recovery address): a route of its own must not be a way to mail an address more.
 */
export async function takeHourlyStarts(c: Context<AuthEnv>, email: string): Promise<void> {
  await takeNamed(c.env.RATE_LIMITER, `otp-email|${email}`, HOURLY);
  await takeNamed(c.env.RATE_LIMITER, `otp-ip|${clientIpKey(c.req.raw.headers)}`, HOURLY);
}

/** The wire answer for a try that was not compared. */
export function refused(refusal: Refusal, now: number, purpose: CodePurpose): AppError {
  switch (refusal.kind) {
    case "not_this_browser":
      return new AppError("email_code_invalid", { detail: BROWSER_HELD[purpose] ? ASK_HERE : ASK_AGAIN });
    case "address_locked":
      return new AppError("email_code_locked", {
        detail: `too many wrong codes for this address: locked until ${new Date(refusal.until).toISOString()}`,
        headers: { "Retry-After": String(Math.max(1, Math.ceil((refusal.until - now) / 1000))) },
      });
    case "spent":
      return new AppError("email_code_locked", {
        detail: `this code has had ${MAX_FAILURES} wrong tries: ask for a new code`,
      });
    case "expired":
      return new AppError("email_code_expired", { detail: "ask for a new code" });
    case "changed":
      return new AppError("email_code_invalid", { detail: "the code changed while it was checked: try again" });
  }
}

/** Who asks: a browser (its cookie's attempt, if any, to resend on) or a signed-in account (its fixed attempt). */
export type Ask =
  | { purpose: BrowserPurpose; email: string; accountId: string | null; cookie: string | undefined }
  | { purpose: AccountPurpose; email: string; accountId: string };

/**
 * A new code for the ask: on its live attempt (a resend keeps the wrong tries, better-auth #11162), else on a new
 * one: a fresh random id for a browser (`opened`: hand it to the browser in its cookie), the account's fixed id
 * otherwise.
 */
export async function askCode(
  db: Db,
  key: string,
  ask: Ask,
  now: number,
): Promise<{ code: string; attempt: string; opened: boolean }> {
  const code = newCode();
  const sent = async (attempt: string) => ({
    attempt,
    purpose: ask.purpose,
    email: ask.email,
    accountId: ask.accountId,
    codeMac: await codeMac(key, ask.email, attempt, code, ask),
    now,
  });
  if ("cookie" in ask) {
    const held = ask.cookie;
    if (held !== undefined && (await resendCode(db, await sent(held)))) return { code, attempt: held, opened: false };
    const attempt = newAttemptId();
    await openAttempt(db, await sent(attempt));
    return { code, attempt, opened: true };
  }
  const attempt = accountAttempt(ask.purpose, ask.accountId);
  if (!(await resendCode(db, await sent(attempt)))) await openAttempt(db, await sent(attempt));
  return { code, attempt, opened: false };
}

interface Check extends AttemptKey {
  email: string;
  code: string;
  /** The account an account-held code must have been asked by; a browser-held code's row names its own. */
  accountId?: string;
}

/**
 * Checks a code: the try counted before it is compared (one conditional write: a try that got no row compares
 * nothing), a wrong code counted against the address too, a right one spent once. Returns the account the row was
 * asked for (a recovery sign-in's account; the asking account otherwise).
 */
export async function checkCode(db: Db, key: string, check: Check, now: number): Promise<{ accountId: string | null }> {
  const counted = await countTry(db, { ...check, now });
  if (!counted) throw refused(await whyRefused(db, { ...check, now }), now, check.purpose);
  const accountId = check.accountId ?? counted.accountId;
  if (!(await codeMatches(key, { ...check, accountId }, counted.codeMac))) {
    await recordWrongCode(db, check.email, now);
    const left = MAX_FAILURES - counted.failures;
    throw new AppError("email_code_invalid", { detail: `${left} ${left === 1 ? "try" : "tries"} left on this code` });
  }
  // A concurrent verify with the same code, or a resend in between, leaves nothing to delete.
  if (!(await consumeAttempt(db, check, counted.codeMac)))
    throw new AppError("email_code_invalid", { detail: "that code was just used or replaced: use the latest one" });
  return { accountId };
}

/**
 * Mails after the answer, its failure logged and never answered: for the routes whose answer must not tell whether
 * a mail went out (a recovery start for an unknown address, a re-authentication for an unlinked one), and for
 * notices of a change already made (answering 502 for a change that happened would mislead). The mailer being set
 * up at all is checked before, the same for every address.
 */
export function mailAfterAnswer(c: Context<AuthEnv>, mail: Mail): void {
  c.executionCtx.waitUntil(
    sendMail(c.env, mail).catch((err: unknown) => logEvent("auth", "mail_not_sent", errorFields(err), "error")),
  );
}

/** 503 before any work when no mail can go out, so the answer is the same for every address. */
export function requireMailer(env: AuthBindings): void {
  if (!mailerConfigured(env)) throw new AppError("mailer_not_configured");
}

/**
 * A browser-held code (sign-in, recovery sign-in) once the start's limits passed: on the attempt this browser's cookie
 * of the purpose names, else on a new one, handed to the browser in that cookie. Returns the code to mail.
 */
export async function askBrowserCode(
  c: Context<AuthEnv>,
  key: string,
  ask: { purpose: BrowserPurpose; email: string; accountId: string | null },
  now: number,
): Promise<string> {
  const cookie = CODE_COOKIES[ask.purpose];
  const held = readEmailCodeCookie(c.req.header("cookie"), cookie);
  const { code, attempt, opened } = await askCode(orm(c.env.DB), key, { ...ask, cookie: held }, now);
  if (opened) c.header("Set-Cookie", emailCodeCookie(attempt, cookie));
  return code;
}

/**
 * Checks a browser-held code: its attempt only from this browser's cookie of the purpose, so a stranger's wrong
 * tries land on the stranger's own attempt. Returns the account the code was asked for (a sign-in's: none).
 */
export async function checkBrowserCode(
  c: Context<AuthEnv>,
  check: { purpose: BrowserPurpose; email: string; code: string },
): Promise<{ accountId: string | null; db: Db; now: number }> {
  const key = codeKey(c.env);
  const now = Date.now();
  const attempt = readEmailCodeCookie(c.req.header("cookie"), CODE_COOKIES[check.purpose]);
  if (!attempt) throw refused({ kind: "not_this_browser" }, now, check.purpose);
  const db = orm(c.env.DB);
  const { accountId } = await checkCode(db, key, { ...check, attempt }, now);
  return { accountId, db, now };
}

/** Clears the browser's code cookie once its code signed in: appended after the session cookie completeSignIn set. */
export function clearBrowserCode(c: Context<AuthEnv>, purpose: BrowserPurpose): void {
  c.header("Set-Cookie", clearedEmailCodeCookie(CODE_COOKIES[purpose]), { append: true });
}
