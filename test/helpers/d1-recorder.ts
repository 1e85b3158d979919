// A D1 binding that records what a request does with it, for handing to `app.fetch` in place of `env.DB`: where
// each D1 session starts (its constraint), every statement prepared, on a session or on the binding itself (the
// primary, outside any session), and the rows D1's own `meta` counts for what ran (what D1 bills: an index entry
// written is a row written). Everything is passed on to the real database; nothing is answered here.
import { env } from "cloudflare:test";

export interface Prepared {
  sql: string;
  /** "session" when prepared on a D1 session the app opened, "binding" when on the binding itself. */
  on: "session" | "binding";
}

/** D1's counts for one statement that ran (`meta.rows_read`, `meta.rows_written`). */
export interface Rows {
  sql: string;
  read: number;
  written: number;
}

export interface D1Recording {
  db: D1Database;
  starts: (string | undefined)[];
  statements: Prepared[];
  /**
   * Rows of the statements whose answer carries `meta`: `run()`, `all()` and every statement of a `batch()`. (`first()`
   * and `raw()` answer without it: their reads are not counted here.)
   */
  rows: Rows[];
  /** Forget what was recorded so far. */
  clear(): void;
}

type Meta = { meta: { rows_read: number; rows_written: number } };
const counted = (sql: string, { meta }: Meta): Rows => ({ sql, read: meta.rows_read, written: meta.rows_written });

/** Each metered statement's text, for naming the rows of a batch. */
const SQL = new WeakMap<D1PreparedStatement, string>();

/** The statement, answering as itself, with the rows of its `run()` and `all()` added to `rows`. */
function metered(statement: D1PreparedStatement, sql: string, rows: Rows[]): D1PreparedStatement {
  const bind = statement.bind.bind(statement);
  const run = statement.run.bind(statement);
  const all = statement.all.bind(statement);
  SQL.set(statement, sql);
  return Object.assign(statement, {
    bind: (...values: unknown[]) => metered(bind(...values), sql, rows),
    run: async () => {
      const result = await run();
      rows.push(counted(sql, result));
      return result;
    },
    all: async () => {
      const result = await all();
      rows.push(counted(sql, result));
      return result;
    },
  });
}

function recorded<T extends object>(target: T, on: Prepared["on"], recording: Omit<D1Recording, "db" | "clear">): T {
  const { statements, rows } = recording;
  return new Proxy(target, {
    get(t, key) {
      if (key === "withSession" && on === "binding") {
        return (constraint?: string) => {
          recording.starts.push(constraint);
          return recorded((t as unknown as D1Database).withSession(constraint), "session", recording);
        };
      }
      if (key === "prepare") {
        return (sql: string) => {
          statements.push({ sql, on });
          return metered((t as unknown as D1Database).prepare(sql), sql, rows);
        };
      }
      if (key === "batch") {
        return async (batch: D1PreparedStatement[]) => {
          const results = await (t as unknown as D1Database).batch(batch);
          results.forEach((result, i) => {
            rows.push(counted(SQL.get(batch[i] as D1PreparedStatement) ?? "?", result as Meta));
          });
          return results;
        };
      }
      const value = Reflect.get(t, key, t);
      return typeof value === "function" ? value.bind(t) : value;
    },
  });
}

export function recordD1(database: D1Database = env.DB): D1Recording {
  const recording = { starts: [] as (string | undefined)[], statements: [] as Prepared[], rows: [] as Rows[] };
  return {
    db: recorded(database, "binding", recording),
    ...recording,
    clear() {
      recording.starts.length = 0;
      recording.statements.length = 0;
      recording.rows.length = 0;
    },
  };
}
