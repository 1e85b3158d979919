// drizzle over a D1 binding or over one request's D1 session (read-replicas.ts), one instance per client, made
// cheaply (build, below).
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
type Relational = NonNullable<ConstructorParameters<typeof SQLiteD1Session>[2]>;
type Session = SQLiteD1Session<Record<string, unknown>, Relational["schema"]>;

/** The schema's relational config, and one drizzle instance every client's instance inherits from. */
let shared: { config: Relational; base: DrizzleD1Database<typeof schema> } | undefined;

function sharedParts() {
  if (!shared) {
    const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
    const config = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
    // Never queried: every instance has a session of its own, over its own client.
    const none = new SQLiteD1Session({} as D1Database, dialect, config, {});
    const base = new DrizzleD1Database("async", dialect, none, undefined);
    Object.assign(base, { _: config });
    shared = { config, base: base as unknown as DrizzleD1Database<typeof schema> };
  }
  return shared;
}

/**
 * What drizzle(client, { schema }) makes, for a fraction of its cost: the schema's relational config is computed
 * once per isolate (a walk of the whole schema, ~3 % of a registration), and an instance is an object inheriting
 * from one shared instance with its own session and client, its relational query builders (`db.query`, one object
 * per table) made on first use. Each request has its own D1 session, so it makes one instance per database it
 * touches, and what a request makes outlives it when a scavenge finds it in flight: a whole drizzle instance per
 * registration was 8 % of what the fleet isolate promoted (docs/scale.md, "The latency tail"). Every query builder
 * reads the session from the instance it is called on (`this.session`).
 */
function build(client: D1Database): Db {
  const { config, base } = sharedParts();
  const retrying = withBusyRetry(client);
  const db = Object.create(base, {
    session: { value: new SQLiteD1Session(retrying, dialect, config, {}), enumerable: true },
    $client: { value: retrying, enumerable: true },
    query: LAZY_QUERY,
  });
  return db as Db;
}

/** `db.query`, made on first use from the instance's own session and kept on it; one getter for every instance. */
const LAZY_QUERY: PropertyDescriptor = {
  configurable: true,
  enumerable: true,
  get(this: { session: Session }) {
    const { query } = new DrizzleD1Database("async", dialect, this.session, sharedParts().config);
    Object.defineProperty(this, "query", { value: query, enumerable: true });
    return query;
  },
};

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
