// drizzle over a D1 binding, one instance per binding: building it walks the whole schema
// (extractTablesRelationalConfig), which the registration profile showed costing ~3 % of a request when done per call.
// Busy refusals are retried (busy-retry.ts). A worker deployed without its D1 binding answers 503
// database_not_configured wherever it would touch the database, rather than a 500.
import { drizzle } from "drizzle-orm/d1";
import { AppError } from "../errors";
import { withBusyRetry } from "./busy-retry";
import * as schema from "./schema";

const build = (db: D1Database) => drizzle(withBusyRetry(db), { schema });

export type Db = ReturnType<typeof build>;

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
