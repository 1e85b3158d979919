// The log's record of its witnesses (issue 48; d1-migrations/0023_log_witnesses.sql), apart from schema.ts so the
// helpers changing the log at the same time touch different files; schema.ts re-exports it.
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Per project and configured witness (its key name): the size the witness holds for the project's log, the latest
 * checkpoint text it cosigned with its cosignature line(s) (served appended to exactly that checkpoint), the last
 * problem (a fork or rollback signal, a refusal, no answer) and when to try again. Written by the project's log
 * integrator (workers/fleet/src/log/witness/), read by the checkpoint routes and the log screen.
 */
export const logWitnesses = sqliteTable(
  "log_witnesses",
  {
    projectId: text("project_id").notNull(),
    witness: text("witness").notNull(),
    size: integer("size").notNull().default(0),
    cosignedSize: integer("cosigned_size"),
    checkpoint: text("checkpoint"),
    cosignature: text("cosignature"),
    cosignedAt: integer("cosigned_at"),
    problem: text("problem"),
    problemSize: integer("problem_size"),
    witnessSize: integer("witness_size"),
    problemAt: integer("problem_at"),
    failures: integer("failures").notNull().default(0),
    retryAt: integer("retry_at").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.witness] })],
);
