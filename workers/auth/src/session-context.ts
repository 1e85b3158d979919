// Session plumbing shared by the auth routes: the key set, who is signed in, and issuing the cookie.
import type { Context } from "hono";
import { clearedSessionCookie, sessionCookie } from "../../../shared/auth/cookie";
import { type CurrentSession, resolveSession } from "../../../shared/auth/current-session";
import { signSessionToken } from "../../../shared/auth/session-token";
import { loadSigningKey, type PublicJwk, parsePreviousKeys, type SigningKey } from "../../../shared/crypto/signing-key";
import type { AccountChange } from "../../../shared/db/account-events";
import { type AccountRow, type AccountView, accountView } from "../../../shared/db/accounts";
import { orm } from "../../../shared/db/client";
import type { IssuedSession, SessionRow } from "../../../shared/db/sessions";
import { AppError } from "../../../shared/errors";
import { noteCaller } from "../../../shared/http/request-log";
import { epochSeconds } from "../../../shared/time";
import type { AuthBindings, AuthEnv } from "./env";

export async function signingKey(env: AuthBindings): Promise<SigningKey> {
  if (!env.AUTH_SIGNING_KEY) throw new AppError("signing_key_unset");
  try {
    return await loadSigningKey(env.AUTH_SIGNING_KEY);
  } catch {
    throw new AppError("signing_key_unset", { detail: "AUTH_SIGNING_KEY is not an Ed25519 private JWK" });
  }
}

/** Every public key a session token may be signed with: the current one, then retired ones. */
export async function verificationKeys(env: AuthBindings): Promise<PublicJwk[]> {
  const current = await signingKey(env);
  return [current.publicJwk, ...parsePreviousKeys(env.AUTH_PREVIOUS_KEYS)];
}

export async function currentSession(c: Context<AuthEnv>, now: number): Promise<CurrentSession | undefined> {
  const current = await resolveSession(orm(c.env.DB), c.req.header("cookie"), {
    keys: await verificationKeys(c.env),
    issuer: c.env.AUTH_ORIGIN,
    now,
    touch: (write) => c.executionCtx.waitUntil(write),
  });
  // Every session the auth host reads comes through here: the request's log line names its caller from this.
  if (current) noteCaller(c, "session");
  return current;
}

export async function requireSession(c: Context<AuthEnv>, now: number): Promise<CurrentSession> {
  const session = await currentSession(c, now);
  if (!session) throw new AppError("not_authenticated");
  return session;
}

/** A change the session makes to its account at `now` (what the account log's line names). */
export function changeBy(session: SessionRow, now: number): AccountChange {
  return { accountId: session.accountId, sessionId: session.id, now };
}

/** The did_oc of the accounts merged into this one (auth-core's `merged_from`). */
function mergedFrom(account: AccountRow): string[] {
  if (!account.mergedFrom) return [];
  const parsed: unknown = JSON.parse(account.mergedFrom);
  return Array.isArray(parsed) ? parsed.filter((d): d is string => typeof d === "string") : [];
}

/** Signs a JWT for the issued session row and sets it as the `oc_session` cookie; returns the Account view. */
export async function setSessionCookie(
  c: Context<AuthEnv>,
  account: AccountRow,
  issued: IssuedSession,
  now: number,
): Promise<AccountView> {
  const view = await accountView(orm(c.env.DB), account);
  const token = await signSessionToken(
    {
      sub: account.id,
      did_oc: view.did_oc,
      jti: issued.jti,
      display_name: view.display_name,
      primary_btc: view.primary_btc,
      display_identity: view.display_identity,
      step_up_at: issued.row.steppedUpAt === null ? null : epochSeconds(issued.row.steppedUpAt),
      sudo_at: epochSeconds(issued.row.authenticatedAt),
      merged_from: mergedFrom(account),
    },
    await signingKey(c.env),
    { issuer: c.env.AUTH_ORIGIN, now, expiresAt: issued.row.expiresAt },
  );
  c.header("Set-Cookie", sessionCookie(token, c.env.COOKIE_DOMAIN));
  return view;
}

export function clearSessionCookie(c: Context<AuthEnv>): void {
  c.header("Set-Cookie", clearedSessionCookie(c.env.COOKIE_DOMAIN));
}
