// Registered envelopes in D1: one insert per registration, with its outbox event, its leaf in the project's log and
// any state change in the same batch (one round trip, one transaction), conditional on what can change since the
// request's checks, so a re-post or a lost race is refused and nothing is half stored.

import { bytesToHex } from "@noble/hashes/utils.js";
import { and, eq, getTableColumns, inArray, type SQL, sql } from "drizzle-orm";
import { utf8 } from "../../../../shared/crypto/digest";
import type { Db } from "../../../../shared/db/client";
import { envelopes, members, outbox } from "../../../../shared/db/schema";
import { asWriteFailure } from "../../../../shared/db/write-failure";
import { AppError } from "../../../../shared/errors";
import { leafHash } from "../../../../shared/tlog/merkle";
import type { Caller } from "../env";
import { newId } from "../ids";
import { notePendingEvent } from "../webhooks/after-write";
import { allHold, type Condition, notRegistered, refuseFailing } from "./conditions";

export type EnvelopeRow = typeof envelopes.$inferSelect;
export type NewEnvelope = Omit<typeof envelopes.$inferInsert, "seq" | "createdAt">;

/** A statement to run in the registration's batch, as drizzle's builders give it (`also`). */
export interface BatchStatement {
  toSQL(): { sql: string; params: unknown[] };
}

const ENVELOPE_COLUMNS = Object.entries(getTableColumns(envelopes));
const ENVELOPE_KEYS = ENVELOPE_COLUMNS.map(([key]) => key) as (keyof EnvelopeRow)[];

/** Every column of the envelopes table, absent ones null: the row as stored, without reading it back. */
function fullRow(row: NewEnvelope, seq: number, createdAt: number): EnvelopeRow {
  const values: Record<string, unknown> = { ...row, seq, createdAt };
  return Object.fromEntries(ENVELOPE_KEYS.map((key) => [key, values[key] ?? null])) as unknown as EnvelopeRow;
}

// The batch's statements are written once, in D1's own terms: drizzle's builders cost ~300 µs of a registration's
// CPU to build and map them (issue 19), for texts that never change. Only the conditions' part varies.
const WRITTEN = "exists (select 1 from outbox where id = ?)";
const INSERTED = ENVELOPE_COLUMNS.filter(([key]) => key !== "seq");
const INSERT_ENVELOPE = `insert into envelopes (${INSERTED.map(([, c]) => c.name).join(", ")})
  select ${INSERTED.map(() => "?").join(", ")} where ${WRITTEN} returning seq`;
// Fanned out already when the project has no active endpoint at the write (nothing to deliver; an endpoint made
// later receives the events from its creation on): the after-write sweep then finds nothing, in one read.
// Payload empty: the delivery body is built from the envelope row when it is sent (`eventBody`,
// webhooks/event-body.ts), so the envelope's bytes are stored once, not twice (~700 bytes a registration).
const INSERT_EVENT = `insert into outbox (id, project_id, event_type, envelope_id, payload, created_at, fanned_out_at)
  select ?, ?, ?, ?, '', ?, case when exists (select 1 from webhook_endpoints where project_id = ? and active = 1)
    then null else ? end where `;
// The envelope's leaf in its project's log, next in order, written only with the envelope (issue 18).
const APPEND_LEAF = `insert into log_leaves (project_id, idx, envelope_id, hash)
  select ?, coalesce((select max(idx) + 1 from log_leaves where project_id = ?), 0), ?, ? where ${WRITTEN}`;

/** The envelope row's values in INSERT_ENVELOPE's order, as the driver stores them. */
function envelopeValues(row: NewEnvelope, createdAt: number): unknown[] {
  const values: Record<string, unknown> = { ...row, createdAt };
  return INSERTED.map(([key, column]) => {
    const value = values[key];
    return value === undefined || value === null ? null : column.mapToDriverValue(value);
  });
}

export interface RegisterOptions {
  /** What must still hold when the write runs (access, the parent's state, …): checked inside the batch. */
  conditions: readonly Condition[];
  /** Further writes of the same registration (a status change), each made conditional on `written`. */
  also?: (written: SQL) => BatchStatement[];
}

/**
 * Stores the envelope, its event and `also` in one batch, one round trip and one transaction. The event row is
 * written first, only if every condition holds and the envelope is not registered yet; the envelope and the
 * other writes follow only if that event row (a fresh id) exists. Nothing written: one read names the reason.
 */
export async function register(
  db: Db,
  row: NewEnvelope,
  eventType: string,
  options: RegisterOptions,
  attempt = 1,
): Promise<EnvelopeRow> {
  const now = Date.now();
  const eventId = newId("evt");
  const conditions = [...options.conditions, notRegistered(row.projectId, row.id)];
  const guard = allHold(conditions);
  const d1 = db.$client;
  const also = (options.also?.(sql`exists (select 1 from ${outbox} where ${outbox.id} = ${eventId})`) ?? []).map(
    (statement) => {
      const query = statement.toSQL();
      return d1.prepare(query.sql).bind(...query.params);
    },
  );
  let results: D1Result[];
  try {
    results = await asWriteFailure("insert_failed", () =>
      d1.batch([
        d1
          .prepare(`${INSERT_EVENT}${guard.text} returning fanned_out_at`)
          .bind(eventId, row.projectId, eventType, row.id, now, row.projectId, now, ...guard.params),
        d1.prepare(INSERT_ENVELOPE).bind(...envelopeValues(row, now), eventId),
        d1
          .prepare(APPEND_LEAF)
          .bind(row.projectId, row.projectId, row.id, bytesToHex(leafHash(utf8(row.body))), eventId),
        ...also,
      ]),
    );
  } catch (err) {
    const message = String(err);
    // One resolution per pledge per project (the partial unique index): a concurrent second one lost the race.
    if (message.includes("UNIQUE") && message.includes("pledge_id") && !message.includes("envelopes.id")) {
      throw new AppError("pledge_not_pending", { detail: `pledge ${row.pledgeId} was resolved by another envelope` });
    }
    if (message.includes("UNIQUE")) throw new AppError("already_registered", { detail: `${row.id} is registered` });
    throw err;
  }
  const event = results[0]?.results[0] as { fanned_out_at: number | null } | undefined;
  const stored = results[1]?.results[0] as { seq: number } | undefined;
  if (stored) {
    if (event?.fanned_out_at === null) notePendingEvent();
    return fullRow(row, stored.seq, now);
  }
  await refuseFailing(db, conditions);
  // Every condition holds again (a state that changed and changed back between the two round trips): try once more.
  if (attempt > 1) throw new Error(`registration of ${row.id} wrote nothing while every condition held`);
  return register(db, row, eventType, options, attempt + 1);
}

export async function findEnvelope(
  db: Db,
  projectId: string,
  id: string,
  kinds: readonly string[],
): Promise<EnvelopeRow | undefined> {
  return db
    .select()
    .from(envelopes)
    .where(and(eq(envelopes.projectId, projectId), eq(envelopes.id, id), inArray(envelopes.kind, [...kinds])))
    .get();
}

/** Rows of `kinds` the caller may see, by id (an id can be registered in several projects). */
export async function visibleEnvelope(db: Db, caller: Caller, id: string, kinds: readonly string[]) {
  const projects: SQL =
    caller.kind === "token"
      ? eq(envelopes.projectId, caller.projectId)
      : inArray(
          envelopes.projectId,
          db
            .select({ id: members.projectId })
            .from(members)
            .where(eq(members.address, caller.address ?? "")),
        );
  return db
    .select()
    .from(envelopes)
    .where(and(eq(envelopes.id, id), inArray(envelopes.kind, [...kinds]), projects))
    .get();
}
