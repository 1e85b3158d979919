// Wakes the dispatchers: fan out the given (or all pending) outbox events of every registry shard and kick each
// endpoint that got work, telling its object which shard its rows are in.
import { and, inArray, lte } from "drizzle-orm";
import { orm } from "../../../../shared/db/client";
import { webhookDeliveries } from "../../../../shared/db/schema";
import type { FleetBindings } from "../env";
import { readEveryShard, shardsOf } from "../registry/shards";
import { fanOut } from "./fanout";

/** An endpoint and the shard (binding name) its project is in. */
export interface EndpointRef {
  id: string;
  shard: string;
}

export async function kickEndpoints(env: FleetBindings, endpoints: readonly EndpointRef[]): Promise<void> {
  const ns = env.WEBHOOK_DISPATCHER;
  await Promise.all(endpoints.map(({ id, shard }) => ns.get(ns.idFromName(id)).kick(id, shard)));
}

export async function dispatch(env: FleetBindings, eventIds?: string[]): Promise<void> {
  await Promise.all(
    shardsOf(env).map(async (shard) => {
      const ids = await fanOut(orm(shard.db), eventIds);
      await kickEndpoints(
        env,
        ids.map((id) => ({ id, shard: shard.binding })),
      );
    }),
  );
}

/** Endpoints with deliveries due now: the cron re-arms their objects in case an alarm was lost (FLT-04). */
export function endpointsWithDueWork(env: FleetBindings, now: number): Promise<EndpointRef[]> {
  return readEveryShard(env, async (db, shard) => {
    const rows = await db
      .selectDistinct({ endpointId: webhookDeliveries.endpointId })
      .from(webhookDeliveries)
      .where(and(inArray(webhookDeliveries.state, ["pending", "in_flight"]), lte(webhookDeliveries.nextRetryAt, now)))
      .limit(500);
    return rows.map((r) => ({ id: r.endpointId, shard: shard.binding }));
  });
}
