// Registered envelopes in D1: one insert per registration, with its outbox event, its leaf in the project's log and
// any state change in the same batch (one round trip, one transaction), conditional on what can change since the
// request's checks, so a re-post or a lost race is refused and nothing is half stored.

import { bytesToHex } from "@noble/hashes/utils.js";
import { and, eq, getTableColumns, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { utf8 } from "../../../../shared/crypto/digest";
import type { Db } from "../../../../shared/db/client";
import { envelopes, logLeaves, members, outbox, webhookEndpoints } from "../../../../shared/db/schema";
import { asWriteFailure } from "../../../../shared/db/write-failure";
import { AppError } from "../../../../shared/errors";
import { leafHash } from "../../../../shared/tlog/merkle";
import type { Caller } from "../env";
import { newId } from "../ids";
import { notePendingEvent } from "../webhooks/after-write";
import { allHold, type Condition, notRegistered, refuseFailing } from "./conditions";

export type EnvelopeRow = typeof envelopes.$inferSelect;
export type NewEnvelope = Omit<typeof envelopes.$inferInsert, "seq" | "createdAt">;

const ENVELOPE_COLUMNS = Object.keys(getTableColumns(envelopes)) as (keyof EnvelopeRow)[];

/** Every column of the envelopes table, absent ones null: the row as stored, without reading it back. */
function fullRow(row: NewEnvelope, seq: number, createdAt: number): EnvelopeRow {
  const values: Record<string, unknown> = { ...row, seq, createdAt };
  return Object.fromEntries(ENVELOPE_COLUMNS.map((key) => [key, values[key] ?? null])) as unknown as EnvelopeRow;
}

/** `insert … select <values> where <condition>`: every column of `table` in its declared order, absent ones null. */
function valuesWhere(table: typeof envelopes | typeof outbox, values: Record<string, unknown>, where: SQL): SQL {
  const columns = Object.keys(getTableColumns(table)).map((key) => sql`${values[key] ?? null}`);
  return sql`select ${sql.join(columns, sql`, `)} where ${where}`;
}

/** The project has an active webhook endpoint (an SQL truth, read inside the registration's batch). */
function hasActiveEndpoint(projectId: string): SQL {
  return sql`exists (select 1 from ${webhookEndpoints} where ${webhookEndpoints.projectId} = ${projectId} and ${webhookEndpoints.active} = 1)`;
}

/** The envelope's leaf in its project's log, next in order, written only with the envelope (issue 18). */
function appendLeaf(db: Db, row: NewEnvelope, written: SQL) {
  const hash = bytesToHex(leafHash(utf8(row.body)));
  const next = sql`coalesce((select max(${logLeaves.idx}) + 1 from ${logLeaves} where ${logLeaves.projectId} = ${row.projectId}), 0)`;
  return db.insert(logLeaves).select(sql`select ${row.projectId}, ${next}, ${row.id}, ${hash} where ${written}`);
}

export interface RegisterOptions {
  /** What must still hold when the write runs (access, the parent's state, …): checked inside the batch. */
  conditions: readonly Condition[];
  /** Further writes of the same registration (a status change), each made conditional on `written`. */
  also?: (written: SQL) => BatchItem<"sqlite">[];
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
  const event = {
    id: eventId,
    projectId: row.projectId,
    eventType,
    envelopeId: row.id,
    // Empty: the delivery body is built from the envelope row when it is sent (`eventBody`, webhooks/event-body.ts),
    // so the envelope's bytes are stored once, not twice (issue 19: ~700 bytes and ~180 µs a registration).
    payload: "",
    createdAt: now,
    // Fanned out already when the project has no active endpoint at the write (nothing to deliver; an endpoint made
    // later receives the events from its creation on): the after-write sweep then finds nothing, in one read.
    fannedOutAt: sql`case when ${hasActiveEndpoint(row.projectId)} then null else ${now} end`,
  };
  const written = sql`exists (select 1 from ${outbox} where ${outbox.id} = ${eventId})`;
  let events: { fannedOutAt: number | null }[];
  let inserted: { seq: number }[];
  try {
    [events, inserted] = await asWriteFailure("insert_failed", () =>
      db.batch([
        db
          .insert(outbox)
          .select(valuesWhere(outbox, event, allHold(conditions)))
          .returning({ fannedOutAt: outbox.fannedOutAt }),
        db
          .insert(envelopes)
          .select(valuesWhere(envelopes, { ...row, createdAt: now }, written))
          // Only the new seq comes back: the row is ours already, and D1's answer is JSON the isolate parses.
          .returning({ seq: envelopes.seq }),
        appendLeaf(db, row, written),
        ...(options.also?.(written) ?? []),
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
  const stored = inserted[0];
  if (stored) {
    if (events[0]?.fannedOutAt === null) notePendingEvent();
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
