// Who is signed in: the first `oc_session` cookie whose JWT verifies AND whose session row is still live.
// The row check is what makes logout take effect at once wherever the cookie is accepted (DECISIONS 9).
import type { PublicJwk } from "../crypto/signing-key";
import type { Db } from "../db/client";
import { liveSessionByJti, type SessionRow, touchDue, touchSession } from "../db/sessions";
import { MAX_SESSION_COOKIES, readSessionCookies } from "./cookie";
import { type SessionClaims, verifySessionToken } from "./session-token";

export { MAX_SESSION_COOKIES };

export interface CurrentSession {
  claims: SessionClaims;
  session: SessionRow;
  /** The account's primary Bitcoin address, read with the row. */
  primaryBtc: string | null;
}

export async function resolveSession(
  db: Db,
  cookieHeader: string | undefined,
  options: {
    keys: readonly PublicJwk[];
    issuer: string;
    now: number;
    /**
     * Where the row's last_seen_at write goes when it is due (at most once per TOUCH_INTERVAL_MS per row; issue 46's
     * devices list): the caller's waitUntil, so no request waits for it and a fresh row costs no write at all.
     */
    touch?: (write: Promise<void>) => void;
  },
): Promise<CurrentSession | undefined> {
  for (const token of readSessionCookies(cookieHeader).slice(0, MAX_SESSION_COOKIES)) {
    const verified = await verifySessionToken(token, options.keys, options);
    if (!verified.ok) continue;
    // The row must belong to the token's subject: a token for A never unlocks B's row (the lookup names `sub`).
    const live = await liveSessionByJti(db, verified.claims.sub, verified.claims.jti, options.now);
    if (live && live.session.accountId === verified.claims.sub) {
      if (options.touch && touchDue(live.session, options.now)) {
        options.touch(touchSession(db, live.session, options.now).catch(() => undefined));
      }
      return { claims: verified.claims, ...live };
    }
  }
  return undefined;
}
