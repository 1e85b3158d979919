// Binds an email code to the browser that asked for it (issue 26): start hands the browser its attempt id in this
// cookie, verify reads the attempt only from it, so a stranger's wrong tries land on the stranger's own attempt.
// Like the OAuth state cookie (oauth/state-cookie.ts): host-only, scoped to the two email-code routes, HttpOnly,
// Secure, and gone when the attempt is. SameSite=Strict: both routes are called by the sign-in page's own fetch.
import { ATTEMPT_ID, ATTEMPT_TTL_MS } from "./email-code";

export const EMAIL_CODE_COOKIE = "oc_email_code";
const PATH = "/api/auth/email-otp";

export function emailCodeCookie(attempt: string): string {
  const maxAge = Math.floor(ATTEMPT_TTL_MS / 1000);
  return `${EMAIL_CODE_COOKIE}=${attempt}; Path=${PATH}; HttpOnly; Secure; SameSite=Strict; Max-Age=${maxAge}`;
}

/** Clears the cookie once its attempt is used (Expires in the past: every browser honours it). */
export function clearedEmailCodeCookie(): string {
  return `${EMAIL_CODE_COOKIE}=; Path=${PATH}; HttpOnly; Secure; SameSite=Strict; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

/** The attempt id the browser's Cookie header names: the first well-formed copy, else undefined. */
export function readEmailCodeCookie(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== EMAIL_CODE_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (ATTEMPT_ID.test(value)) return value;
  }
  return undefined;
}
