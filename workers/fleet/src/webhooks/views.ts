// Webhook endpoints and deliveries as the API shows them: ids, schemas (validation and OpenAPI) and row views.
import { z } from "@hono/zod-openapi";
import type { webhookDeliveries, webhookEndpoints } from "../../../../shared/db/schema";
import { isoMs } from "../../../../shared/time";

export const EndpointId = z.string().regex(/^whe_[0-9a-f]{24}$/, "must be whe_ followed by 24 lowercase hex");
export const DeliveryId = z.string().regex(/^whd_[0-9a-f]{24}$/, "must be whd_ followed by 24 lowercase hex");
export const EventTypes = z
  .array(
    z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z0-9_.*-]+$/),
  )
  .min(1)
  .max(32);

export const EndpointSchema = z
  .object({
    id: z.string(),
    project_id: z.string(),
    url: z.string(),
    event_types: z.array(z.string()),
    active: z.boolean(),
    /** When it was last paused (kept after it resumes: recovering the pause's events starts there), or null. */
    paused_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("WebhookEndpoint");

export const DeliverySchema = z
  .object({
    id: z.string(),
    endpoint_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    idempotency_key: z.string(),
    state: z.string(),
    status_code: z.number().nullable(),
    attempt_count: z.number(),
    next_retry_at: z.string().nullable(),
    succeeded_at: z.string().nullable(),
    error_message: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("WebhookDelivery");

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export const endpointView = (e: EndpointRow) => ({
  id: e.id,
  project_id: e.projectId,
  url: e.url,
  event_types: JSON.parse(e.eventTypes) as string[],
  active: e.active,
  paused_at: e.pausedAt === null ? null : isoMs(e.pausedAt),
  created_at: isoMs(e.createdAt),
});

export const deliveryView = (d: DeliveryRow) => ({
  id: d.id,
  endpoint_id: d.endpointId,
  event_id: d.eventId,
  event_type: d.eventType,
  idempotency_key: d.idempotencyKey,
  state: d.state,
  status_code: d.statusCode,
  attempt_count: d.attemptCount,
  next_retry_at: d.state === "pending" && d.nextRetryAt !== null ? isoMs(d.nextRetryAt) : null,
  succeeded_at: d.succeededAt === null ? null : isoMs(d.succeededAt),
  error_message: d.errorMessage,
  created_at: isoMs(d.createdAt),
});
