// The pending sign-in flows (oauth_states): stored at start, consumed once at the callback by one
// DELETE … RETURNING, so a replayed or concurrent callback finds nothing. Rows live 10 minutes.
import { and, eq, gt, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { oauthStates } from "../../db/schema";

/** How long a started sign-in may take to come back (the provider's consent screen included). */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

export type OAuthStateRow = typeof oauthStates.$inferSelect;

export async function storeOAuthState(db: Db, row: OAuthStateRow): Promise<void> {
  // Expired flows are cleared on the way (indexed on expires_at), so the table holds only the last minutes.
  await db.batch([
    db.delete(oauthStates).where(lt(oauthStates.expiresAt, row.createdAt)),
    db.insert(oauthStates).values(row),
  ]);
}

/** The flow named by `state` for `provider`, removed as it is read; undefined when unknown, expired or used. */
export async function consumeOAuthState(
  db: Db,
  input: { state: string; provider: string; now: number },
): Promise<OAuthStateRow | undefined> {
  const rows = await db
    .delete(oauthStates)
    .where(
      and(
        eq(oauthStates.state, input.state),
        eq(oauthStates.provider, input.provider),
        gt(oauthStates.expiresAt, input.now),
      ),
    )
    .returning();
  return rows[0];
}
