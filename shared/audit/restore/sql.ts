// The SQL that writes a restored project into a database holding none of it, as text for `wrangler d1 execute
// --file`: the project, its owner as its one member, and each envelope's row in the log's order, which is also its
// leaf (its index and the hash the log committed to; d1-migrations/0021). A file has no bound parameters, so every
// value is a literal; table and column names come from the schema (shared/db/schema.ts), so the file cannot drift
// from the tables. No row carries an event id: the `envelopes_registered` trigger fires only for rows that do, so
// no webhook event is queued.
import { getTableColumns, getTableName, type Table } from "drizzle-orm";
import { envelopes, members, projects } from "../../db/schema";
import type { ReplayedRow } from "./replay";

type Literal = string | number | null;

/** D1's longest SQL statement, in bytes (developers.cloudflare.com/d1/platform/limits). */
export const MAX_STATEMENT_BYTES = 100_000;

function literal(value: Literal): string {
  if (value === null) return "NULL";
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a whole number`);
    return String(value);
  }
  // Wrangler takes the first "BEGIN TRANSACTION" of a file for the file's own transaction and deletes it, inside a
  // string too (its d1 trimmer): split the words across a concatenation so the stored bytes are the given ones.
  return `'${value.replaceAll("'", "''").replaceAll("BEGIN TRANSACTION", "BEGIN ' || 'TRANSACTION")}'`;
}

/** One INSERT of `rows` into `table`, every column but `skip`; a key the table lacks is a bug, not a silent drop. */
function insert(table: Table, rows: readonly Record<string, unknown>[], skip: readonly string[] = []): string {
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => !skip.includes(key));
  const known = new Set(columns.map(([key]) => key));
  const values = rows.map((row) => {
    const stray = Object.keys(row).find((key) => !known.has(key));
    if (stray) throw new Error(`${getTableName(table)} has no column for ${stray}`);
    return `(${columns.map(([key]) => literal((row[key] ?? null) as Literal)).join(", ")})`;
  });
  const names = columns.map(([, column]) => column.name).join(", ");
  return `INSERT INTO ${getTableName(table)} (${names}) VALUES ${values.join(",\n  ")}`;
}

export interface RestoreRows {
  projectId: string;
  name: string;
  /** The owner's address: the project's `owner_address` and its one member, role owner. */
  owner: string;
  memberId: string;
  /** When the project and its member are written (ms). */
  now: number;
  /** Each envelope's `created_at` (ms): a bundle holds no registration times, so the bundle's own time, a bound. */
  registeredAt: number;
  /** In the log's order. */
  rows: readonly ReplayedRow[];
}

/** The statements, in the order they must run. */
export function restoreStatements(input: RestoreRows): string[] {
  const { projectId, now } = input;
  const statements = [
    insert(projects, [{ id: projectId, name: input.name, ownerAddress: input.owner, createdAt: now, updatedAt: now }]),
    insert(members, [
      { id: input.memberId, projectId, address: input.owner, role: "owner", createdAt: now, updatedAt: now },
    ]),
  ];
  for (const [leafIdx, row] of input.rows.entries()) {
    // Inserted in the log's order, so `seq` (and the export's order within each kind) follows it as it did.
    const stored = { ...row, projectId, createdAt: input.registeredAt, eventId: null, leafIdx };
    statements.push(insert(envelopes, [stored], ["seq"]));
  }
  return statements;
}

/** The file `wrangler d1 execute --file` runs: `header` as comment lines, then each statement. */
export function sqlFile(header: readonly string[], statements: readonly string[]): string {
  const comments = header.map((line) => `-- ${line.replaceAll("\n", " ")}\n`).join("");
  return `${comments}${statements.map((s) => `${s};\n`).join("")}`;
}
