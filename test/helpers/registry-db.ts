// The registry database a test reads or seeds a project's rows in: with one shard (the default) `env.DB`; in the
// fleet-shards pass (vitest.config.ts) the shard the project was placed in, found as the worker finds it.
import { env } from "cloudflare:test";
import { registryShards } from "../../shared/db/registry-shards";

/** The shard holding `projectId`; `env.DB` when there is one shard or no shard holds it (yet). */
export async function registryDb(projectId: string): Promise<D1Database> {
  const shards = registryShards(env);
  if (shards.length <= 1) return env.DB;
  for (const shard of shards) {
    const row = await shard.db.prepare("SELECT 1 AS found FROM projects WHERE id = ?").bind(projectId).first();
    if (row) return shard.db;
  }
  return env.DB;
}

/** Every registry database (one, or the shards), for a test that looks for a row wherever it is. */
export const registryDbs = (): D1Database[] => registryShards(env).map((s) => s.db);

/** The binding name of the shard holding `projectId` (to hand a test's wrapped database to the worker under it). */
export async function registryBinding(projectId: string): Promise<string> {
  const db = await registryDb(projectId);
  return registryShards(env).find((s) => s.db === db)?.binding ?? "DB";
}
