// Which registry database holds a project (issue 31; docs/scale.md "Writes: shard by project"; docs/decisions.md
// "The registry sharded by project"). A project is created in one shard and all its rows stay there; the shard is
// not written anywhere else. This isolate remembers project → shard the first time it finds it, by one read on
// every shard in parallel (an API token's row is found the same way; caller.ts keeps the token's project); after
// that a request goes straight to its shard with no read of its own. A remembered shard that no longer holds the project (a project moved) is forgotten when the project
// is not found there, and found again. With one shard (the default) nothing is probed and nothing remembered.
import { type Db, orm } from "../../../../shared/db/client";
import {
  firstFound,
  onEveryShard,
  places,
  registryShards,
  type Shard,
  shardSpecs,
} from "../../../../shared/db/registry-shards";
import { AppError } from "../../../../shared/errors";

export type { Shard };

/** Bounded like the other isolate caches: a few thousand projects' shards are a few hundred kilobytes. */
const MAX_REMEMBERED = 8192;
const projectShards = new Map<string, string>();

function remember(map: Map<string, string>, key: string, binding: string) {
  if (map.size >= MAX_REMEMBERED && !map.has(key)) map.delete(map.keys().next().value as string);
  map.set(key, binding);
}

export const rememberProjectShard = (projectId: string, shard: Shard) =>
  remember(projectShards, projectId, shard.binding);
export const forgetProjectShard = (projectId: string) => projectShards.delete(projectId);

/** The shards as this request has them; 503 database_not_configured without any. */
export function shardsOf(env: object): Shard[] {
  const shards = registryShards(env);
  if (shards.length === 0) throw new AppError("database_not_configured");
  return shards;
}

/** The shard this isolate remembers for a project, or the only one. */
export function knownShard(env: object, projectId: string): Shard | undefined {
  const shards = shardsOf(env);
  if (shards.length === 1) return shards[0];
  const binding = projectShards.get(projectId);
  return binding === undefined ? undefined : shards.find((s) => s.binding === binding);
}

/** Whether a project's shard came from memory that may be stale (more than one shard). */
export const remembered = (env: object, projectId: string) => shardsOf(env).length > 1 && projectShards.has(projectId);

/** The shard holding a project: remembered, else found by one read of `projects` on every shard. */
export async function projectShard(env: object, projectId: string): Promise<Shard | undefined> {
  const known = knownShard(env, projectId);
  if (known) return known;
  const found = await firstFound(shardsOf(env), (shard) =>
    shard.db
      .prepare("SELECT 1 AS found FROM projects WHERE id = ?")
      .bind(projectId)
      .first<{ found: number }>()
      .then((row) => row ?? undefined),
  );
  if (found) rememberProjectShard(projectId, found.shard);
  return found?.shard;
}

/** The project's database, or 404 not_found when no shard holds it. */
export async function projectDb(env: object, projectId: string): Promise<Db> {
  const shard = await projectShard(env, projectId);
  if (!shard) throw new AppError("not_found");
  return orm(shard.db);
}

/**
 * A row found by id where the id names no project (a member, a token, an endpoint, an envelope): one read on every
 * shard in parallel, the project's shard remembered from the row.
 */
export async function findOnShards<T extends { projectId: string }>(
  env: object,
  read: (db: Db) => Promise<T | undefined>,
): Promise<{ row: T; db: Db; shard: Shard } | undefined> {
  const found = await firstFound(shardsOf(env), (shard) => read(orm(shard.db)));
  if (!found) return undefined;
  rememberProjectShard(found.value.projectId, found.shard);
  return { row: found.value, db: orm(found.shard.db), shard: found.shard };
}

/** One read on every shard, the answers concatenated in shard order. */
export async function readEveryShard<T>(env: object, read: (db: Db, shard: Shard) => Promise<T[]>): Promise<T[]> {
  return (await onEveryShard(shardsOf(env), (shard) => read(orm(shard.db), shard))).flat();
}

/** A shard by its binding name (a Durable Object keeps the name of the shard its rows are in). */
export function shardNamed(env: object, binding: string): Shard {
  const shard = shardsOf(env).find((s) => s.binding === binding);
  if (!shard) throw new AppError("database_not_configured", { detail: `no registry database ${binding}` });
  return shard;
}

/** The places a project may be created in (the configured shards' places, first one the default). */
export const projectPlaces = (env: object): string[] => places(shardSpecs(env));

/**
 * The shard a new project goes to: one of its place's shards, chosen by the project id's own random bits, so
 * projects spread evenly over a place's shards and the choice needs no read. `undefined`: no shard in that place.
 */
export function placeProject(env: object, projectId: string, place: string | undefined): Shard | undefined {
  const shards = shardsOf(env);
  const where = place ?? shards[0]?.place;
  const candidates = shards.filter((s) => s.place === where);
  if (candidates.length === 0) return undefined;
  const bits = Number.parseInt(projectId.slice(-8), 16);
  return candidates[(Number.isFinite(bits) ? bits : 0) % candidates.length];
}
