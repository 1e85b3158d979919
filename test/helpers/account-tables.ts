// The tables of the drizzle schema (shared/db/schema.ts and what it re-exports) that name an account: every column
// named `account_id` or `…_account_id`, or that references accounts.id (test/auth/account-tables.test.ts, and the
// erasure test that looks for the account in each of them afterwards).
import { getTableColumns, getTableName, is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../../shared/db/schema";

/** Each table naming an account, with the columns that do. */
export function tablesNamingAccounts(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const value of Object.values(schema)) {
    if (!is(value, SQLiteTable)) continue;
    const config = getTableConfig(value);
    const referencing = new Set(
      config.foreignKeys.flatMap((fk) => {
        const ref = fk.reference();
        return getTableName(ref.foreignTable) === "accounts" && ref.foreignColumns.some((c) => c.name === "id")
          ? ref.columns.map((c) => c.name)
          : [];
      }),
    );
    const columns = Object.values(getTableColumns(value))
      .map((c) => c.name)
      .filter((name) => name === "account_id" || name.endsWith("_account_id") || referencing.has(name));
    if (columns.length > 0) found.set(config.name, columns);
  }
  return found;
}
