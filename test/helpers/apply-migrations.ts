// Applies the D1 migrations to each test file's isolated databases before its tests run: the registry's (DB) and,
// in the fleet projects, the auth host's (AUTH_DB: the same database by default, its own in fleet-split; applying
// to one database twice finds every migration applied already).
import { applyD1Migrations, env } from "cloudflare:test";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
if (env.AUTH_DB) await applyD1Migrations(env.AUTH_DB, env.TEST_MIGRATIONS);
