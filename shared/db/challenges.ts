// Issued challenges and their single use. Consumption is one DELETE … RETURNING, so two concurrent uses of a
// nonce cannot both succeed (DECISIONS 5); the message hash must match too, so only the issued text is accepted.
import { and, eq, gt, lt } from "drizzle-orm";
import type { Db } from "./client";
import { challenges } from "./schema";

export type ChallengeRow = typeof challenges.$inferSelect;

export async function storeChallenge(db: Db, row: ChallengeRow): Promise<void> {
  // Expired rows are cleared on the way (indexed on expires_at), so the table holds only the last few minutes.
  await db.batch([
    db.delete(challenges).where(lt(challenges.expiresAt, row.createdAt)),
    db.insert(challenges).values(row),
  ]);
}

export async function consumeChallenge(
  db: Db,
  input: { nonce: string; messageHash: string; now: number },
): Promise<ChallengeRow | undefined> {
  const rows = await db
    .delete(challenges)
    .where(
      and(
        eq(challenges.nonce, input.nonce),
        eq(challenges.messageHash, input.messageHash),
        gt(challenges.expiresAt, input.now),
      ),
    )
    .returning();
  return rows[0];
}
