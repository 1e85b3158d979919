// drizzle over a D1 binding, one instance per binding: building it walks the whole schema
// (extractTablesRelationalConfig), which the registration profile showed costing ~3 % of a request when done per call.
// Busy refusals are retried (busy-retry.ts).
import { drizzle } from "drizzle-orm/d1";
import { withBusyRetry } from "./busy-retry";
import * as schema from "./schema";

const build = (db: D1Database) => drizzle(withBusyRetry(db), { schema });

export type Db = ReturnType<typeof build>;

const instances = new WeakMap<D1Database, Db>();

export function orm(db: D1Database): Db {
  let instance = instances.get(db);
  if (!instance) {
    instance = build(db);
    instances.set(db, instance);
  }
  return instance;
}
