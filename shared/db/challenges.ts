// Issued challenges and their single use (use-once.ts): two concurrent uses of a nonce cannot both succeed
// (DECISIONS 5); the message hash must match too, so only the issued text is accepted. A use names the expiry the
// signed text carries with the nonce: the table's key (0022), so the use is one key lookup.
import { and, eq } from "drizzle-orm";
import type { Db } from "./client";
import { challenges } from "./schema";
import { storeOnce, useOnce } from "./use-once";

export type ChallengeRow = typeof challenges.$inferSelect;

export const storeChallenge = (db: Db, row: ChallengeRow) => storeOnce(db, challenges, row, row.createdAt);

export function consumeChallenge(
  db: Db,
  input: { nonce: string; expiresAt: number; messageHash: string; now: number },
): Promise<ChallengeRow | undefined> {
  const match = and(
    eq(challenges.expiresAt, input.expiresAt),
    eq(challenges.nonce, input.nonce),
    eq(challenges.messageHash, input.messageHash),
  );
  return useOnce(db, challenges, match, input.now);
}
