// Wakes the dispatchers: fan out the given (or all pending) outbox events and kick each endpoint that got work.
import { and, inArray, lte } from "drizzle-orm";
import { orm } from "../../../../shared/db/client";
import { webhookDeliveries } from "../../../../shared/db/schema";
import type { FleetBindings } from "../env";
import { fanOut } from "./fanout";

export async function kickEndpoints(env: FleetBindings, endpointIds: readonly string[]): Promise<void> {
  const ns = env.WEBHOOK_DISPATCHER;
  await Promise.all(endpointIds.map((id) => ns.get(ns.idFromName(id)).kick(id)));
}

export async function dispatch(env: FleetBindings, eventIds?: string[]): Promise<void> {
  await kickEndpoints(env, await fanOut(orm(env.DB), eventIds));
}

/** Endpoints with deliveries due now: the cron re-arms their objects in case an alarm was lost (FLT-04). */
export async function endpointsWithDueWork(env: FleetBindings, now: number): Promise<string[]> {
  const rows = await orm(env.DB)
    .selectDistinct({ endpointId: webhookDeliveries.endpointId })
    .from(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.state, ["pending", "in_flight"]), lte(webhookDeliveries.nextRetryAt, now)))
    .limit(500);
  return rows.map((r) => r.endpointId);
}
