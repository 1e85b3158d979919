// Email one-time codes, pure parts (DECISIONS 8, 10; security-and-reliability §1.3): six digits from the CSPRNG by
// rejection sampling (no modulo bias, leading zeros kept), stored only as HMAC(key, email ‖ code), compared in
// constant time, valid 10 minutes, at most 5 wrong tries whose count survives a resend for an hour.

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

export async function codeMac(key: string, email: string, code: string): Promise<string> {
  const hmacKey = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(`${email}\n${code}`));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Constant-time equality of two hex MACs of the same length. */
export function sameMac(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  if (x.length !== y.length) return false;
  return crypto.subtle.timingSafeEqual(x, y);
}

/** Failures that still count at `now` (the window starts at the first failure). */
export function liveFailures(row: { failures: number; failuresSince: number | null }, now: number): number {
  return row.failuresSince !== null && now - row.failuresSince < FAILURE_WINDOW_MS ? row.failures : 0;
}
