// Applies the D1 migrations to the runtime's databases before each test file runs: the registry's (DB, and in
// the fleet-shards pass its other shards, REGISTRY_SHARDS) and, in the fleet projects, the auth host's (AUTH_DB: the
// same database by default, its own in fleet-shards; applying to a database again finds every migration applied,
// as it does for each file after a runtime's first).
import { applyD1Migrations, env } from "cloudflare:test";
import { registryShards } from "../../shared/db/registry-shards";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
for (const shard of registryShards(env)) await applyD1Migrations(shard.db, env.TEST_MIGRATIONS);
if (env.AUTH_DB) await applyD1Migrations(env.AUTH_DB, env.TEST_MIGRATIONS);
