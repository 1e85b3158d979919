// drizzle over a D1 binding or over one request's D1 session (read-replicas.ts), one instance per client. drizzle() walks
// the whole schema (extractTablesRelationalConfig) each time, which the registration profile showed costing ~3 % of
// a request: here that walk is made once per isolate, and an instance is the two objects drizzle() would make (its
// relational query builders when first used).
// Busy refusals are retried (busy-retry.ts). A worker deployed without its D1 binding answers 503
// database_not_configured wherever it would touch the database, rather than a 500.
import { createTableRelationsHelpers, extractTablesRelationalConfig } from "drizzle-orm";
import { DrizzleD1Database, type drizzle, SQLiteD1Session } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { AppError } from "../errors";
import { withBusyRetry } from "./busy-retry";
import * as schema from "./schema";

export type Db = ReturnType<typeof drizzle<typeof schema>>;

const dialect = new SQLiteAsyncDialect();
let relational: ConstructorParameters<typeof SQLiteD1Session>[2];

/**
 * What drizzle(client, { schema }) makes, with the schema's relational config computed once, and its relational
 * query builders (`db.query`, one object per table: most of an instance's cost, 13 µs, paid once per request and
 * database since each request has its own D1 session) made on first use: the registration path never uses them.
 */
function build(client: D1Database): Db {
  if (!relational) {
    const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
    relational = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
  }
  const config = relational;
  const retrying = withBusyRetry(client);
  const session = new SQLiteD1Session(retrying, dialect, config, {});
  const db = new DrizzleD1Database("async", dialect, session, undefined);
  Object.assign(db, { _: { ...config }, $client: retrying });
  Object.defineProperty(db, "query", {
    configurable: true,
    enumerable: true,
    get() {
      const { query } = new DrizzleD1Database("async", dialect, session, config);
      Object.defineProperty(db, "query", { value: query, enumerable: true });
      return query;
    },
  });
  return db as unknown as Db;
}

const instances = new WeakMap<D1Database, Db>();

export function orm(db: D1Database | undefined): Db {
  if (!db) throw new AppError("database_not_configured", { detail: "the worker has no D1 binding DB" });
  let instance = instances.get(db);
  if (!instance) {
    instance = build(db);
    instances.set(db, instance);
  }
  return instance;
}
