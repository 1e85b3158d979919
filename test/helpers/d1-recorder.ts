// A D1 binding that records what a request does with it, for handing to `app.fetch` in place of `env.DB`: where
// each D1 session starts (its constraint) and every statement prepared, on a session or on the binding itself (the
// primary, outside any session). Everything is passed on to the real database; nothing is answered here.
import { env } from "cloudflare:test";

export interface Prepared {
  sql: string;
  /** "session" when prepared on a D1 session the app opened, "binding" when on the binding itself. */
  on: "session" | "binding";
}

export interface D1Recording {
  db: D1Database;
  starts: (string | undefined)[];
  statements: Prepared[];
  /** Forget what was recorded so far. */
  clear(): void;
}

function recorded<T extends object>(target: T, on: Prepared["on"], statements: Prepared[], extra = {}): T {
  return new Proxy(target, {
    get(t, key) {
      if (key in extra) return (extra as Record<string | symbol, unknown>)[key];
      if (key === "prepare") {
        return (sql: string) => {
          statements.push({ sql, on });
          return (t as unknown as D1Database).prepare(sql);
        };
      }
      const value = Reflect.get(t, key, t);
      return typeof value === "function" ? value.bind(t) : value;
    },
  });
}

export function recordD1(database: D1Database = env.DB): D1Recording {
  const starts: (string | undefined)[] = [];
  const statements: Prepared[] = [];
  const withSession = (constraint?: string) => {
    starts.push(constraint);
    return recorded(database.withSession(constraint), "session", statements);
  };
  return {
    db: recorded(database, "binding", statements, { withSession }),
    starts,
    statements,
    clear() {
      starts.length = 0;
      statements.length = 0;
    },
  };
}
