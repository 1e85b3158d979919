// The body a delivery carries for an outbox event. A registration's event stores no copy of its envelope (the
// payload column is empty): the body is built from the envelope row, whose bytes are the audit export's, so the
// delivery embeds them unchanged. Other events (test.ping) carry their body in the row.
import { and, eq } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import { envelopes, outbox } from "../../../../shared/db/schema";
import { eventPayload } from "../registry/store";

/** The body of event `eventId`, or undefined when the event (or its envelope) is gone. One read. */
export async function eventBody(db: Db, eventId: string): Promise<string | undefined> {
  const found = await db
    .select({
      payload: outbox.payload,
      projectId: outbox.projectId,
      id: envelopes.id,
      kind: envelopes.kind,
      body: envelopes.body,
      delegationId: envelopes.delegationId,
    })
    .from(outbox)
    .leftJoin(envelopes, and(eq(envelopes.projectId, outbox.projectId), eq(envelopes.id, outbox.envelopeId)))
    .where(eq(outbox.id, eventId))
    .get();
  if (!found) return undefined;
  if (found.payload !== "") return found.payload;
  if (found.id === null || found.kind === null || found.body === null) return undefined;
  return eventPayload({
    projectId: found.projectId,
    id: found.id,
    kind: found.kind,
    body: found.body,
    delegationId: found.delegationId,
  });
}
