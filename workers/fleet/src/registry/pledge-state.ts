// A pledge's move out of `pending`, written in the batch of the resolution that causes it (an outcome, an
// abandonment, the reconciler's expired_unresolved) and only if that resolution was written.
import { and, eq, type SQL } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import { envelopes } from "../../../../shared/db/schema";

export const pledgeMovesTo = (db: Db, projectId: string, pledgeId: string, status: string) => (written: SQL) => [
  db
    .update(envelopes)
    .set({ status })
    .where(
      and(
        eq(envelopes.projectId, projectId),
        eq(envelopes.id, pledgeId),
        eq(envelopes.kind, "pledge"),
        eq(envelopes.status, "pending"),
        written,
      ),
    ),
];
