// drizzle over a D1 binding; cheap to create per request.
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = ReturnType<typeof orm>;

export function orm(db: D1Database) {
  return drizzle(db, { schema });
}
