// Registered envelopes in D1: one insert per registration, with its outbox event and any state change in the same
// batch (one transaction), so a re-post is refused by the (project, id) unique index and nothing is half stored.
import { and, eq, inArray, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../../../shared/db/client";
import { envelopes, members, outbox } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import type { Caller } from "../env";
import { newId } from "../ids";

export type EnvelopeRow = typeof envelopes.$inferSelect;
export type NewEnvelope = Omit<typeof envelopes.$inferInsert, "seq" | "createdAt">;

/** Envelope kind labels in delivery bodies (service-spec Events: e.g. `agent-action`). */
export const KIND_LABEL: Record<string, string> = {
  delegation: "agent-delegation",
  subdelegation: "agent-subdelegation",
  action: "agent-action",
  revocation: "agent-revocation",
  pledge: "pledge",
  outcome: "pledge-outcome",
  abandonment: "pledge-abandonment",
};

/** The delivery body `{id, project_id, kind, envelope, delegation_id?}`, with the envelope's bytes embedded as is. */
export function eventPayload(row: NewEnvelope): string {
  const head = `{"id":"${row.id}","project_id":"${row.projectId}","kind":"${KIND_LABEL[row.kind]}","envelope":${row.body}`;
  return row.kind === "action" ? `${head},"delegation_id":"${row.delegationId}"}` : `${head}}`;
}

/** Stores the envelope and its event (and `also`, e.g. a status change); 409 already_registered on a re-post. */
export async function register(
  db: Db,
  row: NewEnvelope,
  eventType: string,
  also: BatchItem<"sqlite">[] = [],
): Promise<EnvelopeRow> {
  const now = Date.now();
  const stored = { ...row, createdAt: now };
  try {
    const [inserted] = await db.batch([
      db.insert(envelopes).values(stored).returning(),
      db.insert(outbox).values({
        id: newId("evt"),
        projectId: row.projectId,
        eventType,
        envelopeId: row.id,
        payload: eventPayload(row),
        createdAt: now,
      }),
      ...also,
    ]);
    return inserted[0] as EnvelopeRow;
  } catch (err) {
    const message = String(err);
    // One resolution per pledge per project (the partial unique index): a concurrent second one lost the race.
    if (message.includes("UNIQUE") && message.includes("pledge_id") && !message.includes("envelopes.id")) {
      throw new AppError("pledge_not_pending", { detail: `pledge ${row.pledgeId} was resolved by another envelope` });
    }
    if (message.includes("UNIQUE")) throw new AppError("already_registered", { detail: `${row.id} is registered` });
    throw err;
  }
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
