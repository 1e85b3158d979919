// The append-only admin log: one row per privilege-changing operation, written in the same batch as the change.
import { type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../../shared/db/client";
import { adminLog } from "../../../shared/db/schema";
import { asWriteFailure } from "../../../shared/db/write-failure";
import type { Access, Actor } from "./access";

export const ADMIN_EVENTS = [
  "project.renamed",
  "project.archived",
  "project.transferred",
  "project.log_made_public",
  "project.log_made_private",
  "member.created",
  "member.updated",
  "member.deleted",
  "token.created",
  "token.updated",
  "token.deleted",
  "webhook_endpoint.created",
  "webhook_endpoint.updated",
  "webhook_endpoint.deleted",
  "webhook_endpoint.secret_rotated",
  "billing.checkout_created",
  "billing.plan_changed",
  "billing.plan_renewed",
] as const;
export type AdminEvent = (typeof ADMIN_EVENTS)[number];

export interface LogInput {
  projectId: string;
  actor: Actor;
  eventType: AdminEvent;
  targetId?: string;
  detail?: Record<string, unknown>;
}

/** The detail column: a change made with a token also names the token and the owner who created it (issue 14). */
function detailOf(entry: LogInput): string | null {
  const { tokenCreator } = entry.actor;
  const via = tokenCreator === undefined ? {} : { via_token: entry.actor.id, token_created_by: tokenCreator };
  const detail = { ...entry.detail, ...via };
  return Object.keys(detail).length > 0 ? JSON.stringify(detail) : null;
}

export function logEntry(db: Db, entry: LogInput) {
  return db.insert(adminLog).values({
    projectId: entry.projectId,
    actor: entry.actor.id,
    eventType: entry.eventType,
    targetId: entry.targetId ?? null,
    detail: detailOf(entry),
    createdAt: Date.now(),
  });
}

/**
 * A log line written in the same batch as a conditional change, only when the change took effect: `applied` is
 * SQL that is true after a successful change (the batch is one transaction, so the two cannot disagree).
 */
export function logEntryIf(db: Db, entry: LogInput, applied: SQL) {
  const detail = detailOf(entry);
  const row = db
    .select({
      // Every column, in table order; NULL lets SQLite assign the next sequence number.
      seq: sql<number>`null`.as("seq"),
      projectId: sql<string>`${entry.projectId}`.as("project_id"),
      actor: sql<string>`${entry.actor.id}`.as("actor"),
      eventType: sql<string>`${entry.eventType}`.as("event_type"),
      targetId: sql<string | null>`${entry.targetId ?? null}`.as("target_id"),
      detail: sql<string | null>`${detail}`.as("detail"),
      createdAt: sql<number>`${Date.now()}`.as("created_at"),
    })
    .from(sql`(select 1)`)
    .where(applied);
  return db.insert(adminLog).select(row);
}

/**
 * A privilege change and its log line in one batch (one transaction): the log can neither miss the change nor
 * record one that failed. The line names the project and the caller of `access`. A failure of the database's own
 * is 500 update_failed; a constraint error passes through for the route to name.
 */
export function changeWithLog(
  access: Pick<Access, "db" | "actor"> & { project: { id: string } },
  change: BatchItem<"sqlite">,
  entry: Omit<LogInput, "projectId" | "actor">,
) {
  const { db } = access;
  return asWriteFailure("update_failed", () =>
    db.batch([change, logEntry(db, { ...entry, projectId: access.project.id, actor: access.actor })]),
  );
}
