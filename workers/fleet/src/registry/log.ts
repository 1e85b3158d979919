// Reading a project's transparency log (issues 18, 26, 29): the integrated state and tiles (log/store.ts) answer
// every checkpoint and proof in a fixed number of queries whatever the log's size; this module reads the leaves
// themselves: an envelope's leaf index, and the leaf order of the integrated log (a bundle's check, O(n) by nature).
// A leaf is its envelope's row (`leaf_idx`, `leaf_hash`; d1-migrations/0021), read through envelopes_leaf.
import type { Db } from "../../../../shared/db/client";

/**
 * An envelope's leaf index and the log's integrated size, in one query: `idx` null when the envelope is not in the
 * project's log, `size` 0 before the first integration.
 */
export async function leafAndSize(
  db: Db,
  projectId: string,
  envelopeId: string,
): Promise<{ idx: number | null; size: number }> {
  const row = await db.$client
    .prepare(
      `select (select leaf_idx from envelopes where project_id = ?1 and id = ?2) as idx,
        coalesce((select size from log_state where project_id = ?1), 0) as size`,
    )
    .bind(projectId, envelopeId)
    .first<{ idx: number | null; size: number }>();
  return row ?? { idx: null, size: 0 };
}

/** The envelope ids of the integrated log's leaves, in leaf order: one query. */
export async function logIds(db: Db, projectId: string): Promise<string[]> {
  const rows = await db.$client
    .prepare(
      `select id from envelopes where project_id = ?1 and leaf_idx >= 0
       and leaf_idx < coalesce((select size from log_state where project_id = ?1), 0) order by leaf_idx`,
    )
    .bind(projectId)
    .raw<[string]>();
  return rows.map(([id]) => id);
}

/** The stored bytes of leaves [from, from + count), in order, for an entry bundle: one query. */
export async function leafEntries(db: Db, projectId: string, from: number, count: number): Promise<string[]> {
  const rows = await db.$client
    .prepare(`select body from envelopes where project_id = ? and leaf_idx >= ? and leaf_idx < ? order by leaf_idx`)
    .bind(projectId, from, from + count)
    .raw<[string]>();
  return rows.map(([body]) => body);
}
