// Regression for the soak's 500s (docs/soak.md): a D1 statement or batch refused with SQLITE_BUSY runs again; an
// opaque "internal error" is retried for reads only; any other error is thrown at once.
import { describe, expect, it } from "vitest";
import { withBusyRetry } from "../../../shared/db/busy-retry";

/** A D1 stand-in whose statements fail with `errors` in turn, then answer; counts the runs. */
function flaky(errors: string[]) {
  let runs = 0;
  const answer = async () => {
    runs += 1;
    const error = errors[runs - 1];
    if (error) throw new Error(error);
    return { results: [], success: true, meta: {} };
  };
  const statement = { bind: () => statement, run: answer, all: answer, first: answer, raw: answer };
  const db = { prepare: () => statement, batch: answer } as unknown as D1Database;
  return { db: withBusyRetry(db), runs: () => runs };
}

const BUSY = "D1_ERROR: NOSENTRY database is locked: SQLITE_BUSY";
const OPAQUE = "internal error; reference = abc123";

describe("D1 busy retry", () => {
  it("runs a busy statement and a busy batch again until it answers", async () => {
    const write = flaky([BUSY, BUSY]);
    await write.db.prepare("insert into t values (?)").bind(1).run();
    expect(write.runs()).toBe(3);
    const batch = flaky([BUSY]);
    await batch.db.batch([batch.db.prepare("insert into t values (1)")]);
    expect(batch.runs()).toBe(2);
  });

  it("retries an opaque internal error for a read, never for a write", async () => {
    const read = flaky([OPAQUE]);
    await read.db.prepare("select * from t").all();
    expect(read.runs()).toBe(2);
    const write = flaky([OPAQUE]);
    await expect(write.db.prepare("delete from t returning *").all()).rejects.toThrow(OPAQUE);
    expect(write.runs()).toBe(1);
  });

  it("throws any other error at once", async () => {
    const other = flaky(["D1_ERROR: UNIQUE constraint failed: t.id"]);
    await expect(other.db.prepare("insert into t values (1)").run()).rejects.toThrow("UNIQUE");
    expect(other.runs()).toBe(1);
  });
});
