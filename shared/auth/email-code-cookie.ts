// Binds an email code to the browser that asked for it (issue 26): start hands the browser its attempt id in a
// cookie, verify reads the attempt only from it, so a stranger's wrong tries land on the stranger's own attempt.
// Like the OAuth state cookie (oauth/state-cookie.ts): host-only, scoped to its two code routes, HttpOnly, Secure,
// and gone when the attempt is. SameSite=Strict: both routes are called by the page's own fetch. Each browser-held
// purpose has its own cookie and path (issue 27), so an attempt is only ever sent to the routes of its purpose.
import { ATTEMPT_ID, ATTEMPT_TTL_MS, type BrowserPurpose } from "./email-code";

export interface CodeCookie {
  name: string;
  path: string;
}

export const CODE_COOKIES: Record<BrowserPurpose, CodeCookie> = {
  signin: { name: "oc_email_code", path: "/api/auth/email-otp" },
  recovery: { name: "oc_recovery_code", path: "/api/auth/recovery/signin" },
};

export const EMAIL_CODE_COOKIE = CODE_COOKIES.signin.name;
export const RECOVERY_CODE_COOKIE = CODE_COOKIES.recovery.name;

export function emailCodeCookie(attempt: string, cookie: CodeCookie = CODE_COOKIES.signin): string {
  const maxAge = Math.floor(ATTEMPT_TTL_MS / 1000);
  return `${cookie.name}=${attempt}; Path=${cookie.path}; HttpOnly; Secure; SameSite=Strict; Max-Age=${maxAge}`;
}

/** Clears the cookie once its attempt is used (Expires in the past: every browser honours it). */
export function clearedEmailCodeCookie(cookie: CodeCookie = CODE_COOKIES.signin): string {
  return `${cookie.name}=; Path=${cookie.path}; HttpOnly; Secure; SameSite=Strict; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

/** The attempt id the browser's Cookie header names: the first well-formed copy, else undefined. */
export function readEmailCodeCookie(
  cookieHeader: string | undefined,
  cookie: CodeCookie = CODE_COOKIES.signin,
): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== cookie.name) continue;
    const value = part.slice(eq + 1).trim();
    if (ATTEMPT_ID.test(value)) return value;
  }
  return undefined;
}
