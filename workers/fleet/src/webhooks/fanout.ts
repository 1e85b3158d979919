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

/** Fans out pending events (all, or the given ids); returns the endpoints that got new deliveries. */
export async function fanOut(db: Db, eventIds?: string[]): Promise<string[]> {
  const events = await db
    .select()
    .from(outbox)
    .where(and(isNull(outbox.fannedOutAt), eventIds ? inArray(outbox.id, eventIds) : undefined))
    .orderBy(outbox.createdAt)
    .limit(FANOUT_BATCH);
  const woken = new Set<string>();
  for (const event of events) {
    const endpoints = await db
      .select()
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.projectId, event.projectId),
          eq(webhookEndpoints.active, true),
          event.endpointId ? eq(webhookEndpoints.id, event.endpointId) : undefined,
        ),
      );
    const targets = endpoints.filter((e) => event.endpointId !== null || subscribed(e.eventTypes, event.eventType));
    const now = Date.now();
    const rows = await Promise.all(
      targets.map(async (endpoint) => ({
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
    );
    // The event is marked first in the batch only so the tuple type has a head; the batch is one transaction.
    await db.batch([
      db.update(outbox).set({ fannedOutAt: now }).where(eq(outbox.id, event.id)),
      ...rows.map((row) => db.insert(webhookDeliveries).values(row).onConflictDoNothing()),
    ]);
    for (const endpoint of targets) woken.add(endpoint.id);
  }
  return [...woken];
}
