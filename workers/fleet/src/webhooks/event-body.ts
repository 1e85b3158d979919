// The body a delivery carries for an outbox event. A registration's event stores no copy of its envelope (the
// payload column is empty): the body is built from the envelope row, whose bytes are the audit export's, so the
// delivery embeds them unchanged. Other events (test.ping) carry their body in the row.
import { and, eq } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import { envelopes, outbox } from "../../../../shared/db/schema";

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
export function eventPayload(
  row: Pick<typeof envelopes.$inferInsert, "id" | "projectId" | "kind" | "body" | "delegationId">,
): string {
  const head = `{"id":"${row.id}","project_id":"${row.projectId}","kind":"${KIND_LABEL[row.kind]}","envelope":${row.body}`;
  return row.kind === "action" ? `${head},"delegation_id":"${row.delegationId}"}` : `${head}}`;
}

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
