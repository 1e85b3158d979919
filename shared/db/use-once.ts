// Rows made to be used once before they expire (sign-in challenges, pending OAuth flows). Storing clears the
// expired rows on the way (each such table is indexed on expires_at), so it holds only the last minutes; using is
// one DELETE … RETURNING, so of two concurrent or replayed uses exactly one gets the row (DECISIONS 5).
import { and, gt, lt, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import type { challenges, oauthStates } from "./schema";

/** The use-once tables (drizzle's generic table types do not carry `expiresAt` through, so they are named). */
type OnceTable = typeof challenges | typeof oauthStates;

/** Inserts `row` and deletes the rows that expired before `now`, in one batch. */
export async function storeOnce<T extends OnceTable>(
  db: Db,
  table: T,
  row: T["$inferInsert"],
  now: number,
): Promise<void> {
  // `never`: drizzle cannot relate a row of the union's member T to the union's insert type; T fixes it here.
  await db.batch([db.delete(table).where(lt(table.expiresAt, now)), db.insert(table).values(row as never)]);
}

/** The unexpired row matching `match`, removed as it is read; undefined when unknown, expired or used. */
export async function useOnce<T extends OnceTable>(
  db: Db,
  table: T,
  match: SQL | undefined,
  now: number,
): Promise<T["$inferSelect"] | undefined> {
  const rows: unknown[] = await db
    .delete(table)
    .where(and(match, gt(table.expiresAt, now)))
    .returning();
  return rows[0] as T["$inferSelect"] | undefined;
}
