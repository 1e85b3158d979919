// The cron's safety net for the logs (issue 29): every project whose leaves run ahead of its integrated size gets its
// integrator poked, so a poke lost after a registration (an isolate gone before its waitUntil ran), a registration
// the cron made itself (an expired pledge's outcome) or leaves the cron just hashed reach a checkpoint on this run.
// One primary-key probe per project that has a log; the integrator does the work.
import type { FleetBindings } from "../env";
import { readEveryShard } from "../registry/shards";

/** Projects whose log has leaves beyond its integrated size (at most `limit` a run). */
export async function projectsBehind(db: D1Database, limit = 1_000): Promise<string[]> {
  const { results } = await db
    .prepare(
      `select p.id from projects p left join log_state s on s.project_id = p.id
       where exists (select 1 from envelopes l where l.project_id = p.id and l.leaf_idx >= coalesce(s.size, 0)
         and l.leaf_hash is not null)
       limit ?`,
    )
    .bind(limit)
    .all<{ id: string }>();
  return results.map((row) => row.id);
}

/** Pokes each project that is behind, on every registry shard; how many. */
export async function catchUpLogs(env: Pick<FleetBindings, "DB" | "LOG_INTEGRATOR">): Promise<number> {
  const behind = await readEveryShard(env, (_db, shard) => projectsBehind(shard.db));
  await Promise.all(
    behind.map((projectId) => env.LOG_INTEGRATOR.get(env.LOG_INTEGRATOR.idFromName(projectId)).poke(projectId)),
  );
  return behind.length;
}
