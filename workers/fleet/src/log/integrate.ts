// Integrating a project's new leaves into its tiles (issue 29; docs/log.md "Integration"): off the registration's
// path, in bounded batches, each one read of the state, one batched read of the edge tiles and the new leaves, and
// one batched write of the tiles it changed, the new state and the checkpoint signed for it, with the project's
// activity counts for the leaves it covers (issue 30). Safe to run twice at
// once (the project's Durable Object and the cron's catch-up): every write only grows what it touches (store.ts).
import type { Db } from "../../../../shared/db/client";
import { checkpointText } from "../../../../shared/tlog/checkpoint";
import { integrate } from "../../../../shared/tlog/tile-proofs";
import { edgeTiles } from "../../../../shared/tlog/tiles";
import { activityCountsStatement } from "../activity/store";
import { type LogKey, logOrigin } from "./key";
import { signCheckpoint } from "./sign";
import { contiguousLeaves, integrationWrites, leavesQuery, readState, tilesOf, tilesQuery } from "./store";

/** Leaves integrated per batch: 16 level-0 tiles, a 256 KiB read of hashes, well inside one invocation's limits. */
export const INTEGRATION_BATCH = 4096;

export interface Integration {
  /** The log's size before and after this batch (equal: nothing to integrate). */
  from: number;
  to: number;
  /** More leaves wait beyond this batch. */
  more: boolean;
}

/** One batch: the next leaves after the integrated size, up to INTEGRATION_BATCH, and a checkpoint for them. */
export async function integrateBatch(db: Db, key: LogKey, projectId: string, now = Date.now()): Promise<Integration> {
  const from = (await readState(db, projectId))?.size ?? 0;
  const [edge, rows] = await db.$client.batch<never>([
    tilesQuery(db, projectId, edgeTiles(from)),
    leavesQuery(db, projectId, from, INTEGRATION_BATCH + 1),
  ]);
  const ready = contiguousLeaves(from, (rows?.results ?? []) as { idx: number; hash: string | null }[]);
  const leaves = ready.slice(0, INTEGRATION_BATCH);
  if (leaves.length === 0) return { from, to: from, more: false };
  const tiles = tilesOf((edge?.results ?? []) as { level: number; idx: number; hashes: string }[]);
  const next = integrate(from, tiles, leaves);
  const text = checkpointText({ origin: logOrigin(key, projectId), size: next.size, root: next.root, extensions: [] });
  const checkpoint = await signCheckpoint(key, text);
  // The activity counts first: they read the stored size this batch is about to move (activity/store.ts).
  await db.$client.batch([
    activityCountsStatement(db, projectId, next.size),
    ...integrationWrites(db, projectId, next.tiles, { size: next.size, root: next.root, checkpoint }, now),
  ]);
  return { from, to: next.size, more: ready.length > INTEGRATION_BATCH };
}

/** Batches until the log has caught up or `budgetMs` has passed; whether leaves still wait. */
export async function integrateFor(db: Db, key: LogKey, projectId: string, budgetMs: number): Promise<Integration> {
  const started = Date.now();
  let first: number | undefined;
  let last: Integration;
  do {
    last = await integrateBatch(db, key, projectId);
    first ??= last.from;
  } while (last.more && Date.now() - started < budgetMs);
  return { from: first, to: last.to, more: last.more };
}
