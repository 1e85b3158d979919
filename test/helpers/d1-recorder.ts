// A D1 binding that records what a request does with it, for handing to `app.fetch` in place of `env.DB`: where
// each D1 session starts (its constraint), every statement prepared, on a session or on the binding itself (the
// primary, outside any session), every call that reaches the database (a round trip: a statement's first, all, run
// or raw, a batch, an exec), and the rows D1's own `meta` counts for what ran (a read answered without `meta` is
// run again for its counts) (what D1 bills: an index entry written
// is a row written). Everything is passed on to the real database; nothing is answered here.
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
   * Rows of every statement that ran: from the `meta` of `run()`, `all()` and each statement of a `batch()`; for a
   * statement answered by `first()` or `raw()` (no `meta`), through `all()` (isRead).
   */
  rows: Rows[];
  /** One entry per call that reached the database: its SQL, or `batch: ` and each statement's SQL joined by `; `. */
  calls: string[];
  /** Forget what was recorded so far. */
  clear(): void;
}

type Meta = { meta: { rows_read: number; rows_written: number } };
const counted = (sql: string, { meta }: Meta): Rows => ({ sql, read: meta.rows_read, written: meta.rows_written });

/** Each metered statement's text, for naming the rows of a batch. */
const SQL = new WeakMap<D1PreparedStatement, string>();

type Log = Pick<D1Recording, "rows" | "calls">;

/**
 * `first()` and `raw()` answer without D1's `meta`. A read is run once more through `all()`, unlogged, for its
 * counts (the same statement reads the same rows); a write runs once, through `all()`, its answer rebuilt from the
 * rows (RETURNING columns have distinct names, so `raw()`'s arrays are the rows' values in order).
 */
const isRead = (sql: string) => /^\s*select\b/i.test(sql);

/** The statement, answering as itself, with each call logged and the rows of its `run()` and `all()` counted. */
function metered(statement: D1PreparedStatement, sql: string, log: Log): D1PreparedStatement {
  const bind = statement.bind.bind(statement);
  const run = statement.run.bind(statement);
  const all = statement.all.bind(statement);
  const first = statement.first.bind(statement) as (column?: string) => Promise<unknown>;
  const raw = statement.raw.bind(statement) as (options?: { columnNames?: boolean }) => Promise<unknown>;
  SQL.set(statement, sql);
  /** `all()` with its rows counted (a write answered by `first()` or `raw()` runs once, through it). */
  const counting = async () => {
    const result = await all();
    log.rows.push(counted(sql, result));
    return result;
  };
  return Object.assign(statement, {
    bind: (...values: unknown[]) => metered(bind(...values), sql, log),
    run: async () => {
      log.calls.push(sql);
      const result = await run();
      log.rows.push(counted(sql, result));
      return result;
    },
    all: () => {
      log.calls.push(sql);
      return counting();
    },
    first: async (column?: string) => {
      log.calls.push(sql);
      if (!isRead(sql)) {
        const row = (await counting()).results[0] as Record<string, unknown> | undefined;
        return row === undefined ? null : column === undefined ? row : (row[column] ?? null);
      }
      const answer = await first(column);
      log.rows.push(counted(sql, await all()));
      return answer;
    },
    raw: async (options?: { columnNames?: boolean }) => {
      log.calls.push(sql);
      if (!isRead(sql)) {
        const rows = (await counting()).results as Record<string, unknown>[];
        const values = rows.map((row) => Object.values(row));
        return options?.columnNames ? [Object.keys(rows[0] ?? {}), ...values] : values;
      }
      const answer = await raw(options);
      log.rows.push(counted(sql, await all()));
      return answer;
    },
  });
}

function recorded<T extends object>(target: T, on: Prepared["on"], recording: Omit<D1Recording, "db" | "clear">): T {
  const { statements } = recording;
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
          return metered((t as unknown as D1Database).prepare(sql), sql, recording);
        };
      }
      if (key === "batch") {
        return async (batch: D1PreparedStatement[]) => {
          const sqls = batch.map((statement) => SQL.get(statement) ?? "?");
          recording.calls.push(`batch: ${sqls.join("; ")}`);
          const results = await (t as unknown as D1Database).batch(batch);
          results.forEach((result, i) => {
            recording.rows.push(counted(sqls[i] as string, result as Meta));
          });
          return results;
        };
      }
      if (key === "exec") {
        return (sql: string) => {
          recording.calls.push(sql);
          return (t as unknown as D1Database).exec(sql);
        };
      }
      const value = Reflect.get(t, key, t);
      return typeof value === "function" ? value.bind(t) : value;
    },
  });
}

/** A recording binding over `database`; `calls` may be another recording's, to log two bindings' round trips as one. */
export function recordD1(database: D1Database = env.DB, calls: string[] = []): D1Recording {
  const recording = { starts: [] as (string | undefined)[], statements: [] as Prepared[], rows: [] as Rows[], calls };
  return {
    db: recorded(database, "binding", recording),
    ...recording,
    clear() {
      recording.starts.length = 0;
      recording.statements.length = 0;
      recording.rows.length = 0;
      recording.calls.length = 0;
    },
  };
}
