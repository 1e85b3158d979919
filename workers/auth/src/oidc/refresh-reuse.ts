// Refresh-token reuse detection (issue 44, item 3; RFC 9700 4.14.2), held in D1 (d1-migrations/0018). The library
// rotates refresh tokens but keeps the one just used valid until its successor is used, and answers a token older
// than that with a plain invalid_grant, leaving the grant alive. Here each refresh token, once rotated, is claimed by
// its sha256: a second rotation of it, or any later presentation the library refuses, is a reuse, and the whole
// grant is revoked (every access and refresh token of it). There is no grace: an app that loses the answer to a
// refresh and sends the same token again loses the grant, and the person signs in to it again.
import { eq, lt } from "drizzle-orm";
import { sha256Hex } from "../../../../shared/crypto/digest";
import type { Db } from "../../../../shared/db/client";
import { oidcRefreshRotations } from "../../../../shared/db/schema";
import { REFRESH_TOKEN_TTL_SECONDS } from "./server";

/** A rotation is remembered a day past the longest a grant (and so any of its refresh tokens) can live. */
export const REFRESH_ROTATION_MEMORY_MS = (REFRESH_TOKEN_TTL_SECONDS + 24 * 3600) * 1000;

/** What a refresh token is stored as: its sha256, hex (never the token). */
export const refreshTokenHash = (token: string) => sha256Hex(token);

/**
 * The account and grant a token of the library names: it issues codes and tokens as `<account id>:<grant id>:<secret>`
 * (docs/oidc.md says so). Only for a token the library just accepted; undefined for any other shape.
 */
export function grantOfToken(token: string): { accountId: string; grantId: string } | undefined {
  const [accountId, grantId, secret, ...rest] = token.split(":");
  return accountId && grantId && secret && rest.length === 0 ? { accountId, grantId } : undefined;
}

/** The grant whose refresh token this hash names, when that token was already rotated away from (retired). */
export const retiredRefresh = (db: Db, tokenHash: string) =>
  db
    .select({ grantId: oidcRefreshRotations.grantId, accountId: oidcRefreshRotations.accountId })
    .from(oidcRefreshRotations)
    .where(eq(oidcRefreshRotations.tokenHash, tokenHash))
    .get();

/**
 * Claims the one rotation of a refresh token, atomically in D1: false when it was rotated before (a reuse; the
 * library's own check reads KV and keeps the previous token valid). Rows past their memory are deleted first.
 */
export async function claimRefreshRotation(
  db: Db,
  rotation: { tokenHash: string; grantId: string; accountId: string },
  now: number,
): Promise<boolean> {
  const [, inserted] = await db.batch([
    db.delete(oidcRefreshRotations).where(lt(oidcRefreshRotations.rotatedAt, now - REFRESH_ROTATION_MEMORY_MS)),
    db
      .insert(oidcRefreshRotations)
      .values({ ...rotation, rotatedAt: now })
      .onConflictDoNothing()
      .returning({ tokenHash: oidcRefreshRotations.tokenHash }),
  ]);
  return inserted.length === 1;
}
