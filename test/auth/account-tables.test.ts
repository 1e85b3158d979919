// Every table that names an account is in the data download and in the erasure (issue 46, item 5): the tables are
// derived from the drizzle schema (shared/db/schema.ts and what it re-exports), as every column named `account_id`
// or `…_account_id`, or that references accounts.id, so a new table naming an account fails here until the export
// (shared/db/account-export.ts, EXPORT_PLAN) and the erasure (shared/db/erase.ts, ERASURE) say what becomes of it.
import { describe, expect, it } from "vitest";
import { EXPORT_PLAN } from "../../shared/db/account-export";
import { AccountExportSchema } from "../../shared/db/account-export-schema";
import { ERASURE } from "../../shared/db/erase";
import { tablesNamingAccounts } from "../helpers/account-tables";

describe("tables naming an account", () => {
  it("finds them in the schema (accounts itself, and the tables known today)", () => {
    const tables = tablesNamingAccounts();
    for (const known of ["account_identities", "sessions", "webauthn_credentials", "account_events", "connect_apps"]) {
      expect(tables.has(known), known).toBe(true);
    }
    expect(tables.get("connect_apps")).toEqual(["owner_account_id"]);
  });

  it("are each in the export: a section of the document, or a stated reason to leave it out", () => {
    const sections = new Set(Object.keys(AccountExportSchema.shape));
    const missing = [...tablesNamingAccounts().keys()].filter((t) => !(t in EXPORT_PLAN));
    expect(missing).toEqual([]);
    for (const [table, plan] of Object.entries(EXPORT_PLAN)) {
      if ("section" in plan) expect(sections.has(plan.section), table).toBe(true);
      else expect(plan.omitted.length, table).toBeGreaterThan(20);
    }
    expect(Object.hasOwn(EXPORT_PLAN, "accounts")).toBe(true);
  });

  it("are each in the erasure", () => {
    const missing = [...tablesNamingAccounts().keys()].filter((t) => !(t in ERASURE) && t !== "accounts");
    expect(missing).toEqual([]);
  });

  it("fails for a table it does not know (the check is not vacuous)", () => {
    const tables = tablesNamingAccounts();
    tables.set("a_new_table", ["account_id"]);
    expect([...tables.keys()].filter((t) => !(t in EXPORT_PLAN))).toEqual(["a_new_table"]);
  });
});
