// Reading a project's transparency log (issues 18, 26): its leaves in order, from `log_leaves`. A registration
// writes its leaf with its hash in the insert's own statement (d1-migrations/0010); leaves from before that are
// hashed by the cron in bounded slices (leaf-hashes.ts). A read never writes, and costs the same number of queries
// whatever the log's size: the log it serves is the prefix of leaves already hashed (every leaf, once the cron has
// caught up with rows from before 0010), so a checkpoint only ever commits to leaves whose hash is stored.
import { hexToBytes } from "@noble/hashes/utils.js";
import type { Db } from "../../../../shared/db/client";
import type { Hash } from "../../../../shared/tlog/merkle";

/**
 * The log's size: the index of its first unhashed leaf (the partial index `log_leaves_unhashed` finds it), or with
 * none, one past the last leaf (the primary key finds it). Never a scan.
 */
const SIZE = `coalesce(
  (select min(idx) from log_leaves where project_id = ?1 and hash is null),
  (select max(idx) + 1 from log_leaves where project_id = ?1),
  0)`;

const HASHES = `select hash from log_leaves where project_id = ?1 and idx < ${SIZE} order by idx`;
const IDS = `select envelope_id from log_leaves where project_id = ?1 and idx < ${SIZE} order by idx`;
const INDEX = `select idx, idx < ${SIZE} as logged from log_leaves where project_id = ?1 and envelope_id = ?2`;

/** The leaf hashes of the project's log, in order: one query. */
export async function logHashes(db: Db, projectId: string): Promise<Hash[]> {
  const rows = await db.$client.prepare(HASHES).bind(projectId).raw<[string]>();
  return rows.map(([hash]) => hexToBytes(hash));
}

/** The envelope ids of the project's log, in leaf order: one query. */
export async function logIds(db: Db, projectId: string): Promise<string[]> {
  const rows = await db.$client.prepare(IDS).bind(projectId).raw<[string]>();
  return rows.map(([id]) => id);
}

/** The envelope's leaf index, when it is in the log (registered and hashed): one query. */
export async function leafIndex(db: Db, projectId: string, envelopeId: string): Promise<number | undefined> {
  const row = await db.$client.prepare(INDEX).bind(projectId, envelopeId).first<{ idx: number; logged: number }>();
  return row?.logged ? row.idx : undefined;
}
