// A D1 binding that retries a statement or batch refused with SQLITE_BUSY ("database is locked"). A busy refusal
// means nothing was written (a batch is one transaction), so running it again is safe. It happens when two
// processes share one SQLite file, as the local stack does (scripts/dev.mjs: auth and fleet persist to one D1):
// under concurrent writes one of them answered 500 internal_error (the soak, docs/soak.md). workerd reports some of
// those refusals to the script only as "internal error; reference = …": that is retried for reads alone, where
// running again cannot write twice.

/** Waits before each retry; then the error is the caller's. */
export const BUSY_RETRY_DELAYS_MS = [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000, 1000, 1000, 1000];
const BUSY = /SQLITE_BUSY|database is locked/;
const OPAQUE = /internal error; reference =/;
const READ = /^\s*(select|with)\b/i;

async function retryBusy<T>(work: () => Promise<T>, read = false): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      const delay = BUSY_RETRY_DELAYS_MS[attempt];
      const text = String(err);
      if (delay === undefined || !(BUSY.test(text) || (read && OPAQUE.test(text)))) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay * (1 + Math.random())));
    }
  }
}

class RetryingStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    private readonly read: boolean,
  ) {}
  bind(...values: unknown[]): RetryingStatement {
    return new RetryingStatement(this.inner.bind(...values), this.read);
  }
  first<T>(column?: string): Promise<T | null> {
    return retryBusy(() => (column === undefined ? this.inner.first<T>() : this.inner.first<T>(column)), this.read);
  }
  all<T>(): Promise<D1Result<T>> {
    return retryBusy(() => this.inner.all<T>(), this.read);
  }
  run<T>(): Promise<D1Result<T>> {
    return retryBusy(() => this.inner.run<T>(), this.read);
  }
  raw<T>(options?: { columnNames?: boolean }): Promise<T[]> {
    // D1's overloads: with columnNames the first row is the names; drizzle calls raw() without options.
    return retryBusy(() => this.inner.raw<T>(options as { columnNames?: false }), this.read);
  }
}

const unwrap = (s: D1PreparedStatement | RetryingStatement) => (s instanceof RetryingStatement ? s.inner : s);

/**
 * A class, not an object of closures: one is made per D1 session, so per request, and what a request makes lives
 * until a full collection when a scavenge finds it in flight (docs/scale.md, "The latency tail").
 */
class RetryingDatabase {
  constructor(private readonly db: D1Database) {}
  prepare(query: string): RetryingStatement {
    return new RetryingStatement(this.db.prepare(query), READ.test(query));
  }
  batch<T>(statements: (D1PreparedStatement | RetryingStatement)[]): Promise<D1Result<T>[]> {
    return retryBusy(() => this.db.batch<T>(statements.map(unwrap)));
  }
  exec(query: string): Promise<D1ExecResult> {
    return retryBusy(() => this.db.exec(query));
  }
  dump(): Promise<ArrayBuffer> {
    return this.db.dump();
  }
  withSession(constraint?: string): D1DatabaseSession {
    return this.db.withSession(constraint);
  }
}

/** `db` with busy retries on prepared statements and batches; everything else passes through. */
export function withBusyRetry(db: D1Database): D1Database {
  return new RetryingDatabase(db) as unknown as D1Database;
}
