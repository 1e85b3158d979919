// The pending sign-in flows (oauth_states): stored at start, used once at the callback (db/use-once.ts), so a
// replayed or concurrent callback finds nothing. Rows live 10 minutes.
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { oauthStates } from "../../db/schema";
import { storeOnce, useOnce } from "../../db/use-once";

/** How long a started sign-in may take to come back (the provider's consent screen included). */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

export type OAuthStateRow = typeof oauthStates.$inferSelect;

export const storeOAuthState = (db: Db, row: OAuthStateRow) => storeOnce(db, oauthStates, row, row.createdAt);

/** The flow named by `state` for `provider`, removed as it is read; undefined when unknown, expired or used. */
export function consumeOAuthState(
  db: Db,
  input: { state: string; provider: string; now: number },
): Promise<OAuthStateRow | undefined> {
  const match = and(eq(oauthStates.state, input.state), eq(oauthStates.provider, input.provider));
  return useOnce(db, oauthStates, match, input.now);
}
