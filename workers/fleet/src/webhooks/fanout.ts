// Fan-out: each outbox event becomes one delivery row per active endpoint of its project subscribed to its type
// (unique per event and endpoint, so a repeated fan-out adds nothing), then the endpoints' dispatchers are woken.
import { and, eq, inArray, isNull } from "drizzle-orm";
import { randomHex, sha256Hex } from "../../../../shared/crypto/digest";
import type { Db } from "../../../../shared/db/client";
import { outbox, webhookDeliveries, webhookEndpoints } from "../../../../shared/db/schema";

/** Events fanned out per call; the cron sweep picks up the rest. */
export const FANOUT_BATCH = 50;

/** Stable for one event to one endpoint, different across endpoints (service-spec Events rule 6). */
export async function idempotencyKey(eventId: string, endpointId: string): Promise<string> {
  return `whk_${(await sha256Hex(`${eventId}:${endpointId}`)).slice(0, 32)}`;
}

export function subscribed(eventTypes: string, eventType: string): boolean {
  const types = JSON.parse(eventTypes) as string[];
  return types.includes(eventType) || types.includes("*");
}

/** D1 binds at most 100 parameters per statement; a delivery row takes 11. */
const ROWS_PER_INSERT = 9;

/**
 * Fans out pending events (all, or the given ids) in three round trips whatever their number: the events, the
 * active endpoints of their projects, then one batch (one transaction) that marks the events and inserts every
 * delivery. Returns the endpoints that got new deliveries.
 */
export async function fanOut(db: Db, eventIds?: string[]): Promise<string[]> {
  // Not the payload: fan-out only routes events, and payloads are the bulk of the table.
  const events = await db
    .select({
      id: outbox.id,
      projectId: outbox.projectId,
      eventType: outbox.eventType,
      endpointId: outbox.endpointId,
    })
    .from(outbox)
    .where(and(isNull(outbox.fannedOutAt), eventIds ? inArray(outbox.id, eventIds) : undefined))
    .orderBy(outbox.createdAt)
    .limit(FANOUT_BATCH);
  const [first] = events;
  if (!first) return [];
  const projectIds = [...new Set(events.map((e) => e.projectId))];
  const endpoints = await db
    .select({ id: webhookEndpoints.id, projectId: webhookEndpoints.projectId, eventTypes: webhookEndpoints.eventTypes })
    .from(webhookEndpoints)
    .where(and(inArray(webhookEndpoints.projectId, projectIds), eq(webhookEndpoints.active, true)));
  const now = Date.now();
  const rows = await Promise.all(
    events.flatMap((event) =>
      endpoints
        .filter((e) => e.projectId === event.projectId)
        .filter((e) => (event.endpointId ? e.id === event.endpointId : subscribed(e.eventTypes, event.eventType)))
        .map(async (endpoint) => ({
          id: `whd_${randomHex(12)}`,
          projectId: event.projectId,
          endpointId: endpoint.id,
          eventId: event.id,
          eventType: event.eventType,
          idempotencyKey: await idempotencyKey(event.id, endpoint.id),
          state: "pending",
          attemptCount: 0,
          nextRetryAt: now,
          createdAt: now,
          updatedAt: now,
        })),
    ),
  );
  const inserts = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    inserts.push(
      db
        .insert(webhookDeliveries)
        .values(rows.slice(i, i + ROWS_PER_INSERT))
        .onConflictDoNothing(),
    );
  }
  await db.batch([
    db
      .update(outbox)
      .set({ fannedOutAt: now })
      .where(
        inArray(
          outbox.id,
          events.map((e) => e.id),
        ),
      ),
    ...inserts,
  ]);
  return [...new Set(rows.map((r) => r.endpointId))];
}
