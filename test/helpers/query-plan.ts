// SQLite's query plan of a statement, for the tests that hold every read of a path to an index (registry and sign-in).
import { env } from "cloudflare:test";

/** The plan's lines for `sql`, its parameters bound to null (SQLite plans without looking at bound values). */
export async function queryPlan(sql: string, db: D1Database = env.DB): Promise<string[]> {
  const params = (sql.match(/\?/g) ?? []).map(() => null);
  const { results } = await db
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return results.map((r) => r.detail);
}
