// One Durable Object per webhook endpoint: its alarm sends every due delivery of that endpoint (a few at once, each
// with its own 8-second limit, so one slow receiver delays nobody else), then re-arms for the earliest retry.
// Delivery state lives in D1; the object only holds its endpoint id. The cron sweep re-arms objects whose alarm
// was lost (a fired alarm is used up, FLT-04).
import { DurableObject } from "cloudflare:workers";
import { and, asc, eq, inArray, lte, min } from "drizzle-orm";
import { type Db, orm } from "../../../../shared/db/client";
import { webhookDeliveries, webhookEndpoints } from "../../../../shared/db/schema";
import { shardNamed } from "../registry/shards";
import { type AttemptResult, attempt, type DeliveryContext } from "../webhooks/deliver";

/** Deliveries sent per alarm (Workers allow 6 simultaneous connections per invocation). */
export const DELIVERIES_PER_ALARM = 5;
const ENDPOINT_KEY = "endpoint";
/** The registry database (shard) the endpoint's rows are in, by binding name; objects from before shards: DB. */
const SHARD_KEY = "shard";

/** What a dispatcher reads of the fleet's bindings (the fleet's FleetBindings extends it). */
export interface DispatcherBindings {
  DB: D1Database;
  WEBHOOK_MASTER_KEY?: string;
  WEBHOOK_ALLOW_LOOPBACK?: string;
}

export class WebhookDispatcher extends DurableObject<DispatcherBindings> {
  private async db(): Promise<Db> {
    return orm(shardNamed(this.env, (await this.ctx.storage.get<string>(SHARD_KEY)) ?? "DB").db);
  }

  private async context(): Promise<DeliveryContext> {
    return {
      db: await this.db(),
      masterKey: this.env.WEBHOOK_MASTER_KEY ?? "",
      allowLoopback: this.env.WEBHOOK_ALLOW_LOOPBACK === "true",
      now: () => Date.now(),
    };
  }

  /** New work for this endpoint: run as soon as possible (min with any alarm already set). */
  async kick(endpointId: string, shard: string): Promise<void> {
    await this.ctx.storage.put({ [ENDPOINT_KEY]: endpointId, [SHARD_KEY]: shard });
    const current = await this.ctx.storage.getAlarm();
    const now = Date.now();
    if (current === null || current > now) await this.ctx.storage.setAlarm(now);
  }

  /** An operator's retry: the same attempt logic, at once, marked as manual. */
  async retryNow(endpointId: string, deliveryId: string, shard: string): Promise<AttemptResult> {
    await this.ctx.storage.put({ [ENDPOINT_KEY]: endpointId, [SHARD_KEY]: shard });
    const ctx = await this.context();
    const endpoint = await ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)).get();
    const delivery = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
    if (!endpoint || !delivery) return { state: "skipped", statusCode: null, errorMessage: "gone" };
    const result = await attempt(ctx, endpoint, delivery, true);
    await this.rearm();
    return result;
  }

  override async alarm(): Promise<void> {
    const endpointId = await this.ctx.storage.get<string>(ENDPOINT_KEY);
    if (!endpointId) return;
    const ctx = await this.context();
    try {
      const endpoint = await ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)).get();
      if (!endpoint?.active) return; // deleted or paused: nothing is sent; resuming kicks the object again
      const due = await ctx.db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.endpointId, endpointId),
            inArray(webhookDeliveries.state, ["pending", "in_flight"]),
            lte(webhookDeliveries.nextRetryAt, Date.now()),
          ),
        )
        .orderBy(asc(webhookDeliveries.nextRetryAt))
        .limit(DELIVERIES_PER_ALARM);
      await Promise.all(due.map((delivery) => attempt(ctx, endpoint, delivery, false)));
    } finally {
      // Re-armed last and always, so a failure above cannot leave due work without an alarm (FLT-02).
      await this.rearm();
    }
  }

  private async rearm(): Promise<void> {
    const endpointId = await this.ctx.storage.get<string>(ENDPOINT_KEY);
    if (!endpointId) return;
    const row = await (await this.db())
      .select({ next: min(webhookDeliveries.nextRetryAt) })
      .from(webhookDeliveries)
      .where(
        and(eq(webhookDeliveries.endpointId, endpointId), inArray(webhookDeliveries.state, ["pending", "in_flight"])),
      )
      .get();
    if (row?.next !== null && row?.next !== undefined) await this.ctx.storage.setAlarm(Math.max(row.next, Date.now()));
  }
}
