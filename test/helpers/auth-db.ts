// The auth host's database as a test sees it: the fleet project's AUTH_DB (the same database as its registry DB, or
// a database of its own in the fleet-shards pass, vitest.config.ts), else the auth project's DB.
import { env } from "cloudflare:test";

export const authDb = (): D1Database => env.AUTH_DB ?? env.DB;
