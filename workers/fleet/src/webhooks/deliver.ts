// One delivery attempt: claimed first (so an attempt number is sent at most once, FLT-05), signed at send time
// (a retry hours later carries a fresh timestamp), posted with an 8-second limit and no redirects, then recorded:
// succeeded, or the next retry time, or failed for good after attempt 6.
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import { webhookDeliveries, type webhookEndpoints } from "../../../../shared/db/schema";
import {
  checkEndpointUrl,
  DELIVERY_TIMEOUT_MS,
  deliveryHeaders,
  errorMessage,
  nextAttemptAt,
  openSecret,
} from "../../../../shared/webhooks";
import { attemptStatement } from "../activity/store";
import { eventBody } from "./event-body";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type EndpointRow = typeof webhookEndpoints.$inferSelect;

export interface AttemptResult {
  state: "succeeded" | "pending" | "failed" | "skipped";
  statusCode: number | null;
  errorMessage: string | null;
}

export interface DeliveryContext {
  db: Db;
  masterKey: string;
  allowLoopback: boolean;
  now: () => number;
}

async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status?: number; error?: string }> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual", // a 3xx is a failure, never followed (SSRF through redirects)
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return { status: res.status };
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    return {
      error:
        name === "TimeoutError" || name === "AbortError" ? "timeout" : err instanceof Error ? err.message : String(err),
    };
  }
}

/** Sends one attempt of `delivery` to `endpoint`; `manual` marks an operator's retry (and may follow a success). */
export async function attempt(
  ctx: DeliveryContext,
  endpoint: EndpointRow,
  delivery: DeliveryRow,
  manual: boolean,
): Promise<AttemptResult> {
  const { db } = ctx;
  const number = delivery.attemptCount + 1;
  const claimed = await db
    .update(webhookDeliveries)
    .set({ state: "in_flight", attemptCount: number, updatedAt: ctx.now() })
    .where(
      and(
        eq(webhookDeliveries.id, delivery.id),
        eq(webhookDeliveries.attemptCount, delivery.attemptCount),
        inArray(webhookDeliveries.state, manual ? ["pending", "failed", "in_flight"] : ["pending", "in_flight"]),
      ),
    )
    .returning();
  if (claimed.length === 0) return { state: "skipped", statusCode: null, errorMessage: null };
  const body = await eventBody(db, delivery.eventId);
  const guard = checkEndpointUrl(endpoint.url, { allowLoopback: ctx.allowLoopback });
  let outcome: { status?: number; error?: string };
  /** When the request went out, if one did: the attempt's latency runs from here to `now` below. */
  let sentAt: number | null = null;
  if (body === undefined) outcome = { error: "event missing" };
  else if (!guard.ok) outcome = { error: `url refused: ${guard.detail}` };
  else {
    let headers: Record<string, string> | undefined;
    try {
      // A rolled secret keeps signing until its overlap ends (routes/webhook-secret-roll.ts): X-Service-Signature
      // by it, X-Service-Signature-Next by the new one, webhook-signature by both (shared/webhooks/signing.ts).
      const previous = endpoint.previousSecretSealed;
      const stillSigning = previous !== null && (endpoint.previousSecretUntil ?? 0) > ctx.now();
      headers = await deliveryHeaders({
        secret: await openSecret(endpoint.secretSealed, ctx.masterKey),
        ...(stillSigning ? { previousSecret: await openSecret(previous, ctx.masterKey) } : {}),
        body,
        eventType: delivery.eventType,
        deliveryId: `${delivery.id}.${number}`,
        idempotencyKey: delivery.idempotencyKey,
        attempt: number,
        manual,
        now: ctx.now(),
      });
    } catch {
      // A changed master key must not leave the row in flight: the attempt fails and is retried on schedule.
      headers = undefined;
    }
    if (headers) {
      sentAt = ctx.now();
      outcome = await post(guard.url, headers, body);
    } else outcome = { error: "signing secret unavailable" };
  }
  const now = ctx.now();
  const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  const next = ok ? null : nextAttemptAt(number, now, Math.random() * 2 - 1);
  const state: AttemptResult["state"] = ok ? "succeeded" : next === null ? "failed" : "pending";
  const message = ok ? null : errorMessage(outcome);
  // The result and its endpoint's hourly roll-up (issue 30) in one batch: the chart counts what the row says.
  await db.$client.batch([
    db.$client
      .prepare(
        `update webhook_deliveries set state = ?, status_code = ?, error_message = ?, next_retry_at = ?,
           succeeded_at = ?, updated_at = ? where id = ?`,
      )
      .bind(state, outcome.status ?? null, message, next, ok ? now : null, now, delivery.id),
    attemptStatement(db, {
      projectId: delivery.projectId,
      endpointId: endpoint.id,
      at: now,
      outcome: ok ? "succeeded" : state === "failed" ? "failed" : "retried",
      latencyMs: sentAt === null ? null : now - sentAt,
      failure: message,
    }),
  ]);
  return { state, statusCode: outcome.status ?? null, errorMessage: message };
}
