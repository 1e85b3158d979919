// Email one-time codes, pure parts (DECISIONS 8, 10; security-and-reliability §1.3): six digits from the CSPRNG by
// rejection sampling (no modulo bias, leading zeros kept), stored only as HMAC(key, email ‖ code), compared in
// constant time, valid 10 minutes, at most 5 wrong tries whose count survives a resend for an hour.

import { hex } from "@scure/base";
import { utf8 } from "../crypto/digest";
import { hmacSha256, hmacSha256Verify } from "../crypto/hmac";

export const CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_FAILURES = 5;
/** Failures are forgotten this long after the first one. */
export const FAILURE_WINDOW_MS = 60 * 60 * 1000;
/** Starts per address and per IP per hour. */
export const STARTS_PER_HOUR = 5;

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

const macInput = (email: string, code: string) => utf8(`${email}\n${code}`);

/** The stored form of a code: hex HMAC-SHA256(key, email ‖ "\n" ‖ code). */
export async function codeMac(key: string, email: string, code: string): Promise<string> {
  return hex.encode(await hmacSha256(utf8(key), macInput(email, code)));
}

/** Whether `code` is the one stored as `storedMac`, checked by the platform's HMAC verify (constant time). */
export async function codeMatches(key: string, email: string, code: string, storedMac: string): Promise<boolean> {
  let mac: Uint8Array;
  try {
    mac = hex.decode(storedMac);
  } catch {
    return false;
  }
  return hmacSha256Verify(utf8(key), mac, macInput(email, code));
}
