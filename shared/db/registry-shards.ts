// The registry's databases (issue 31, docs/scale.md "Writes: shard by project"): one D1 database by default, or
// several, each a shard that holds whole projects. `REGISTRY_SHARDS` lists their bindings in order, each with the
// place its database was created in (a D1 location hint such as `weur`, or a jurisdiction such as `eu`):
//
//   REGISTRY_SHARDS = "DB, REGISTRY_1, REGISTRY_EU@eu"
//
// Unset, the one shard is the worker's own registry binding at the place `default`. The order is the shards' index,
// which a bookmark names (read-replicas.ts); appending a shard keeps every index, so shards are only ever appended.
// Pure: parsing and the fan-out helpers; which shard holds a project is the fleet's (workers/fleet/src/registry/shards.ts).

/** A place a registry database lives: a D1 location hint, a jurisdiction, or `default` (D1 chooses). */
export const PLACE = /^[a-z][a-z0-9-]{0,31}$/;
export const DEFAULT_PLACE = "default";

export interface ShardSpec {
  index: number;
  binding: string;
  place: string;
}

export interface Shard extends ShardSpec {
  db: D1Database;
}

const BINDING = /^[A-Z][A-Z0-9_]{0,63}$/;

/** `REGISTRY_SHARDS` read; a malformed or repeated entry throws (a deployment error, named). */
export function parseShards(value: string | undefined, fallback: string): ShardSpec[] {
  const entries = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return [{ index: 0, binding: fallback, place: DEFAULT_PLACE }];
  const specs = entries.map((entry, index) => {
    const [binding = "", place = DEFAULT_PLACE, ...rest] = entry.split("@");
    if (!BINDING.test(binding) || !PLACE.test(place) || rest.length > 0) {
      throw new Error(`REGISTRY_SHARDS: "${entry}" is not BINDING or BINDING@place`);
    }
    return { index, binding, place };
  });
  const bindings = new Set(specs.map((s) => s.binding));
  if (bindings.size !== specs.length) throw new Error("REGISTRY_SHARDS names a binding twice");
  return specs;
}

const parsed = new Map<string, ShardSpec[]>();

/** The shards a worker's env configures (parsed once per isolate and value). */
export function shardSpecs(env: object, fallback = "DB"): ShardSpec[] {
  const value = (env as { REGISTRY_SHARDS?: string }).REGISTRY_SHARDS;
  const key = `${fallback}|${value ?? ""}`;
  let specs = parsed.get(key);
  if (!specs) {
    specs = parseShards(value, fallback);
    parsed.set(key, specs);
  }
  return specs;
}

/** The configured shards whose binding this env has, as this request has them (a D1 session each). */
export function registryShards(env: object, fallback = "DB"): Shard[] {
  const bindings = env as Record<string, D1Database | undefined>;
  return shardSpecs(env, fallback).flatMap((spec) => {
    const db = bindings[spec.binding];
    return db ? [{ ...spec, db }] : [];
  });
}

/** The shards' binding names, in shard order (read-replicas.ts runs a session on each). */
export const shardBindings = (env: object, fallback = "DB"): string[] =>
  shardSpecs(env, fallback).map((s) => s.binding);

/** The places projects can be created in, in the order their first shard is listed. */
export function places(shards: readonly ShardSpec[]): string[] {
  return [...new Set(shards.map((s) => s.place))];
}

/** One read on every shard, in parallel; the answers in shard order. */
export function onEveryShard<T>(shards: readonly Shard[], read: (shard: Shard) => Promise<T>): Promise<T[]> {
  return Promise.all(shards.map(read));
}

/** The first shard (in shard order) whose read finds something, with what it found. */
export async function firstFound<T>(
  shards: readonly Shard[],
  read: (shard: Shard) => Promise<T | undefined>,
): Promise<{ shard: Shard; value: T } | undefined> {
  if (shards.length === 1) {
    const [only] = shards as [Shard];
    const value = await read(only);
    return value === undefined ? undefined : { shard: only, value };
  }
  const values = await onEveryShard(shards, read);
  const at = values.findIndex((v) => v !== undefined);
  const shard = shards[at];
  return shard === undefined ? undefined : { shard, value: values[at] as T };
}
