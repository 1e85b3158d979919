// Registered envelopes in D1: one insert per registration (the row is also the envelope's leaf in its project's log,
// with the leaf's hash computed here; its outbox event comes from the insert's trigger) with any state change in the
// same batch (one round trip, one transaction), conditional on what can change since the request's checks, so a
// re-post or a lost race is refused and nothing is half stored.

import { bytesToHex } from "@noble/hashes/utils.js";
import { and, eq, getTableColumns, inArray, type SQL, sql } from "drizzle-orm";
import { utf8 } from "../../../../shared/crypto/digest";
import type { Db } from "../../../../shared/db/client";
import { envelopes, members } from "../../../../shared/db/schema";
import { asWriteFailure } from "../../../../shared/db/write-failure";
import { AppError } from "../../../../shared/errors";
import { leafDigest } from "../../../../shared/tlog/leaf-digest";
import type { Caller } from "../env";
import { newId } from "../ids";
import { noteLogLeaf } from "../log/after-write";
import { notePendingEvent } from "../webhooks/after-write";
import { allHold, type Condition, notRegistered, refuseFailing } from "./conditions";

export type EnvelopeRow = typeof envelopes.$inferSelect;
export type NewEnvelope = Omit<typeof envelopes.$inferInsert, "seq" | "createdAt" | "eventId" | "leafHash" | "leafIdx">;
/** A registered envelope's row and its leaf index in the project's log. */
export type RegisteredRow = EnvelopeRow & { logIndex: number };

/** A statement to run in the registration's batch, as drizzle's builders give it (`also`). */
export interface BatchStatement {
  toSQL(): { sql: string; params: unknown[] };
}

const ENVELOPE_COLUMNS = Object.entries(getTableColumns(envelopes));
const ENVELOPE_KEYS = ENVELOPE_COLUMNS.map(([key]) => key) as (keyof EnvelopeRow)[];

/** A row to insert: the registration's fields, its time, its event and its log leaf's hash. */
type Inserted = NewEnvelope & Pick<EnvelopeRow, "createdAt" | "eventId" | "leafHash">;

/** Every column of the envelopes table, absent ones null: the row as stored, without reading it back. */
function fullRow(row: Inserted, seq: number, leafIdx: number): EnvelopeRow {
  const values: Record<string, unknown> = { ...row, seq, leafIdx };
  return Object.fromEntries(ENVELOPE_KEYS.map((key) => [key, values[key] ?? null])) as unknown as EnvelopeRow;
}

// The registration is one statement, written once in D1's own terms (drizzle's builders cost ~300 µs of a
// registration's CPU to build and map texts that never change; issue 19): the envelope, inserted only while every
// condition holds, carrying a fresh event id, its leaf's hash (computed here from the bytes stored, so reading the
// log never writes; issue 26) and its leaf index, the project's next (`max + 1` on the envelopes_leaf index, in the
// same statement, so two registrations cannot take one index). The row is the leaf (d1-migrations/0021: no row of
// its own, issue 47). The `envelopes_registered` trigger writes its event when the project has an active webhook
// endpoint (a project without one has nothing to deliver; an endpoint made later receives the events from its
// creation on); the event's payload is empty (the delivery body is built from the envelope row when sent,
// webhooks/event-body.ts). `pending` is the trigger's own test, read in the same statement.
const INSERTED = ENVELOPE_COLUMNS.filter(([key]) => key !== "seq" && key !== "leafIdx");
const INSERT_ENVELOPE = `insert into envelopes (${INSERTED.map(([, c]) => c.name).join(", ")}, leaf_idx)
  select ${INSERTED.map(() => "?").join(", ")},
    (select coalesce(max(leaf_idx) + 1, 0) from envelopes where project_id = ?) where `;
const RETURNING = ` returning seq, leaf_idx,
  exists (select 1 from webhook_endpoints where project_id = ? and active = 1) as pending`;

/** The envelope row's values in INSERT_ENVELOPE's order, as the driver stores them. */
function envelopeValues(row: Inserted): unknown[] {
  const values: Record<string, unknown> = row;
  return INSERTED.map(([key, column]) => {
    const value = values[key];
    return value === undefined || value === null ? null : column.mapToDriverValue(value);
  });
}

export interface RegisterOptions {
  /** What must still hold when the write runs (access, the parent's state, …): checked inside the statement. */
  conditions: readonly Condition[];
  /** Further writes of the same registration (a status change), each made conditional on `written`. */
  also?: (written: SQL) => BatchStatement[];
}

/**
 * Stores the envelope as its log leaf, with its event (one statement and its trigger), and `also`, in one batch: one
 * round trip, one transaction. The envelope is written only if every condition holds and it is not registered yet;
 * `also` only if this registration's row (its fresh event id) exists. Nothing written: one read names the reason. The
 * event's type follows the envelope's kind (events.ts).
 */
export async function register(
  db: Db,
  row: NewEnvelope,
  options: RegisterOptions,
  attempt = 1,
): Promise<RegisteredRow> {
  const now = Date.now();
  const stored: Inserted = {
    ...row,
    createdAt: now,
    eventId: newId("evt"),
    leafHash: bytesToHex(await leafDigest(utf8(row.body))),
  };
  const conditions = [...options.conditions, notRegistered(row.projectId, row.id)];
  const guard = allHold(conditions);
  const d1 = db.$client;
  // `also` waits on this registration's row (the fresh event id tells it from a concurrent registration of the same
  // envelope). Built only when there is an `also`: an action has none, and this is drizzle's builder again.
  const also: D1PreparedStatement[] = [];
  if (options.also) {
    const written = sql`exists (select 1 from ${envelopes} where ${envelopes.projectId} = ${row.projectId}
      and ${envelopes.id} = ${row.id} and ${envelopes.eventId} = ${stored.eventId})`;
    for (const statement of options.also(written)) {
      const query = statement.toSQL();
      also.push(d1.prepare(query.sql).bind(...query.params));
    }
  }
  let inserted: { seq: number; leaf_idx: number; pending: number } | undefined;
  try {
    const [first] = await asWriteFailure("insert_failed", () =>
      d1.batch<{ seq: number; leaf_idx: number; pending: number }>([
        d1
          .prepare(`${INSERT_ENVELOPE}${guard.text}${RETURNING}`)
          .bind(...envelopeValues(stored), row.projectId, ...guard.params, row.projectId),
        ...also,
      ]),
    );
    inserted = first?.results[0];
  } catch (err) {
    const message = String(err);
    // One resolution per pledge per project (the partial unique index): a concurrent second one lost the race.
    if (message.includes("UNIQUE") && message.includes("pledge_id") && !message.includes("envelopes.id")) {
      throw new AppError("pledge_not_pending", { detail: `pledge ${row.pledgeId} was resolved by another envelope` });
    }
    if (message.includes("UNIQUE")) throw new AppError("already_registered", { detail: `${row.id} is registered` });
    throw err;
  }
  if (inserted) {
    if (inserted.pending) notePendingEvent();
    noteLogLeaf(row.projectId);
    return { ...fullRow(stored, inserted.seq, inserted.leaf_idx), logIndex: inserted.leaf_idx };
  }
  await refuseFailing(db, conditions);
  // Every condition holds again (a state that changed and changed back between the two round trips): try once more.
  if (attempt > 1) throw new Error(`registration of ${row.id} wrote nothing while every condition held`);
  return register(db, row, options, attempt + 1);
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
