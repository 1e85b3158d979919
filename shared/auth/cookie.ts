// The `oc_session` cookie (DECISIONS 9): serialise, clear, and read every copy a browser sends.

export const SESSION_COOKIE = "oc_session";
export const SESSION_COOKIE_MAX_AGE = 30 * 24 * 60 * 60; // seconds: the session row lifetime
/** At most this many `oc_session` copies are tried per request, so a flood of cookies cannot multiply the work. */
export const MAX_SESSION_COOKIES = 4;

function attributes(domain: string | undefined, maxAge: number): string[] {
  // Domain is omitted when unset (local dev on localhost): browsers refuse Domain=localhost.
  const attrs = ["Path=/", "HttpOnly", "Secure", "SameSite=Lax"];
  if (domain) attrs.push(`Domain=${domain}`);
  attrs.push(`Max-Age=${maxAge}`);
  return attrs;
}

export function sessionCookie(jwt: string, domain: string | undefined): string {
  return [`${SESSION_COOKIE}=${jwt}`, ...attributes(domain, SESSION_COOKIE_MAX_AGE)].join("; ");
}

export function clearedSessionCookie(domain: string | undefined): string {
  return [`${SESSION_COOKIE}=`, ...attributes(domain, 0), "Expires=Thu, 01 Jan 1970 00:00:00 GMT"].join("; ");
}

/** Every `oc_session` value in a Cookie header; several may coexist (host-only and domain cookies). */
export function readSessionCookies(cookieHeader: string | undefined): string[] {
  if (!cookieHeader) return [];
  const values: string[] = [];
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      if (value) values.push(value);
    }
  }
  return values;
}
