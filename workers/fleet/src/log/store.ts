// A project's tiled log in D1 (issue 29; docs/log.md): the integrated state (size, root, signed checkpoint) and the
// tiles. Every write is monotone, so two integrators that race (the project's Durable Object and the cron's catch-up)
// cannot undo each other: a tile's content for a width is a function of the leaves, so a tile row only ever grows
// (a longer content replaces a shorter one, never the reverse), and the state only moves to a larger size.

import { hexToBytes } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";
import type { Db } from "../../../../shared/db/client";
import type { Hash } from "../../../../shared/tlog/merkle";
import { type TileContents, type TileRef, tileKey } from "../../../../shared/tlog/tiles";

export interface LogState {
  size: number;
  root: Hash;
  checkpoint: string;
}

/** The project's integrated log, or undefined before its first integration (the empty log). One query. */
export async function readState(db: Db, projectId: string): Promise<LogState | undefined> {
  const row = await db.$client
    .prepare("select size, root, checkpoint from log_state where project_id = ?")
    .bind(projectId)
    .first<{ size: number; root: string; checkpoint: string }>();
  return row ? { size: row.size, root: base64.decode(row.root), checkpoint: row.checkpoint } : undefined;
}

/** The statement that reads the given tiles of a project (its result goes to `tilesOf`). */
export function tilesQuery(db: Db, projectId: string, refs: readonly TileRef[]): D1PreparedStatement {
  const unique = [...new Map(refs.map((ref) => [tileKey(ref.level, ref.index), ref])).values()];
  if (unique.length === 0) return db.$client.prepare("select level, idx, hashes from log_tiles where 0");
  const pairs = unique.map(() => "(?, ?)").join(", ");
  return db.$client
    .prepare(`select level, idx, hashes from log_tiles where project_id = ? and (level, idx) in (values ${pairs})`)
    .bind(projectId, ...unique.flatMap((ref) => [ref.level, ref.index]));
}

/** The rows `tilesQuery` read, as tile contents by key. */
export function tilesOf(rows: readonly { level: number; idx: number; hashes: string }[]): TileContents {
  return new Map(rows.map((row) => [tileKey(row.level, row.idx), base64.decode(row.hashes)]));
}

/** The given tiles of a project: one query. */
export async function readTiles(db: Db, projectId: string, refs: readonly TileRef[]): Promise<TileContents> {
  const { results } = await tilesQuery(db, projectId, refs).all<{ level: number; idx: number; hashes: string }>();
  return tilesOf(results);
}

/** The statement that reads up to `limit` leaves from index `from` (their hashes go to `contiguousLeaves`). */
export function leavesQuery(db: Db, projectId: string, from: number, limit: number): D1PreparedStatement {
  return db.$client
    .prepare(
      "select leaf_idx as idx, leaf_hash as hash from envelopes where project_id = ? and leaf_idx >= ? order by leaf_idx limit ?",
    )
    .bind(projectId, from, limit);
}

/**
 * The leaf hashes that extend a log of size `from`: the run of consecutive indexes from `from` that carry a hash
 * (a leaf from before registrations carried one waits for the cron to hash it, and so does every leaf after it).
 */
export function contiguousLeaves(from: number, rows: readonly { idx: number; hash: string | null }[]): Hash[] {
  const leaves: Hash[] = [];
  for (const row of rows) {
    if (row.idx !== from + leaves.length || row.hash === null) break;
    leaves.push(hexToBytes(row.hash));
  }
  return leaves;
}

/** Tiles and the state after an integration, written in one batch; each write only ever grows what it touches. */
export function integrationWrites(
  db: Db,
  projectId: string,
  tiles: readonly { level: number; index: number; hashes: Uint8Array }[],
  state: LogState,
  now: number,
): D1PreparedStatement[] {
  const d1 = db.$client;
  const writeTile = d1.prepare(
    `insert into log_tiles (project_id, level, idx, hashes) values (?, ?, ?, ?)
     on conflict (project_id, level, idx) do update set hashes = excluded.hashes
     where length(excluded.hashes) > length(log_tiles.hashes)`,
  );
  const writeState = d1.prepare(
    `insert into log_state (project_id, size, root, checkpoint, updated_at) values (?, ?, ?, ?, ?)
     on conflict (project_id) do update set size = excluded.size, root = excluded.root,
       checkpoint = excluded.checkpoint, updated_at = excluded.updated_at
     where excluded.size > log_state.size`,
  );
  return [
    ...tiles.map((tile) => writeTile.bind(projectId, tile.level, tile.index, base64.encode(tile.hashes))),
    writeState.bind(projectId, state.size, base64.encode(state.root), state.checkpoint, now),
  ];
}
