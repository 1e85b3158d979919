// Webhook endpoints (the signing secret appears once, in the 201), the delivery log and the manual retry
// (service-spec Events, rule 11; DECISIONS 14-15). Admins and owners manage endpoints.
import { createRoute, z } from "@hono/zod-openapi";
import { and, desc, eq } from "drizzle-orm";
import type { Context } from "hono";
import { orm } from "../../../../shared/db/client";
import { outbox, webhookDeliveries, webhookEndpoints } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { checkEndpointUrl, newWebhookSecret, sealSecret } from "../../../../shared/webhooks";
import { atLeast, projectAccess } from "../access";
import { logEntry } from "../admin-log";
import type { FleetEnv } from "../env";
import { newId } from "../ids";
import { routeLimit } from "../limits";
import { DEFAULT_LIMIT, PageQuery } from "../pagination";
import { IdParam, okWith, ProjectId } from "../schemas";
import { dispatch, kickEndpoints } from "../webhooks/dispatch";

export const webhookRoutes = routeGroup<FleetEnv>();
const EndpointId = z.string().regex(/^whe_[0-9a-f]{24}$/, "must be whe_ followed by 24 lowercase hex");
const DeliveryId = z.string().regex(/^whd_[0-9a-f]{24}$/, "must be whd_ followed by 24 lowercase hex");
const EventTypes = z
  .array(
    z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z0-9_.*-]+$/),
  )
  .min(1)
  .max(32);

const EndpointSchema = z
  .object({
    id: z.string(),
    project_id: z.string(),
    url: z.string(),
    event_types: z.array(z.string()),
    active: z.boolean(),
    created_at: z.string(),
  })
  .openapi("WebhookEndpoint");
const DeliverySchema = z
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

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

const endpointView = (e: EndpointRow) => ({
  id: e.id,
  project_id: e.projectId,
  url: e.url,
  event_types: JSON.parse(e.eventTypes) as string[],
  active: e.active,
  created_at: isoMs(e.createdAt),
});

const deliveryView = (d: DeliveryRow) => ({
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

function guardUrl(c: Context<FleetEnv>, url: string): string {
  const checked = checkEndpointUrl(url, { allowLoopback: c.env.WEBHOOK_ALLOW_LOOPBACK === "true" });
  if (!checked.ok) throw new AppError("invalid_body", { detail: `url: ${checked.detail}` });
  return checked.url;
}

async function endpointAccess(c: Context<FleetEnv>, id: string, write = true) {
  const row = await orm(c.env.DB).select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();
  if (!row) throw new AppError("not_found");
  const access = await projectAccess(c, row.projectId, { write });
  atLeast(access, "admin");
  return { row, access };
}

webhookRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/webhooks/endpoints",
    summary: "A project's webhook endpoints (never their secrets)",
    middleware: [routeLimit("webhook-endpoints-list")],
    request: { query: z.strictObject({ project_id: ProjectId }) },
    responses: {
      200: json(okWith({ endpoints: z.array(EndpointSchema), next_cursor: z.null() }), "Endpoints"),
      ...errorResponses("invalid_query", "unauthenticated", "role_forbidden", "not_found"),
    },
  }),
  async (c) => {
    const { project_id } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    atLeast(access, "admin");
    const rows = await access.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.projectId, project_id))
      .limit(100);
    return c.json({ ok: true as const, endpoints: rows.map(endpointView), next_cursor: null }, 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/webhooks/endpoints",
    summary: "Register a webhook endpoint; its signing secret is in this answer and never again",
    middleware: [routeLimit("webhook-endpoints-create"), jsonBody],
    request: {
      body: jsonRequest(
        z.strictObject({
          project_id: ProjectId,
          url: z.string().max(2048),
          event_types: EventTypes,
          active: z.boolean().optional(),
        }),
      ),
    },
    responses: {
      201: json(okWith({ endpoint: EndpointSchema, secret: z.string() }), "Registered"),
      ...errorResponses("invalid_body", "unauthenticated", "role_forbidden", "not_found", "webhook_master_key_unset"),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const access = await projectAccess(c, input.project_id, { write: true });
    atLeast(access, "admin");
    const masterKey = c.env.WEBHOOK_MASTER_KEY;
    if (!masterKey || masterKey.length < 32) throw new AppError("webhook_master_key_unset");
    const url = guardUrl(c, input.url);
    const secret = newWebhookSecret();
    const now = Date.now();
    const endpoint: EndpointRow = {
      id: newId("whe"),
      projectId: input.project_id,
      url,
      eventTypes: JSON.stringify([...new Set(input.event_types)]),
      active: input.active ?? true,
      secretSealed: await sealSecret(secret, masterKey),
      createdAt: now,
      updatedAt: now,
    };
    const { db } = access;
    await db.batch([
      db.insert(webhookEndpoints).values(endpoint),
      logEntry(db, {
        projectId: endpoint.projectId,
        actor: access.actor,
        eventType: "webhook_endpoint.created",
        targetId: endpoint.id,
        detail: { url },
      }),
    ]);
    return c.json({ ok: true as const, endpoint: endpointView(endpoint), secret }, 201);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/webhooks/endpoints/{id}",
    summary: "One webhook endpoint",
    middleware: [routeLimit("webhook-endpoints-read")],
    request: { params: IdParam(EndpointId) },
    responses: {
      200: json(okWith({ endpoint: EndpointSchema }), "The endpoint"),
      ...errorResponses("invalid_id", "not_found"),
    },
  }),
  async (c) => {
    const { row } = await endpointAccess(c, c.req.valid("param").id, false);
    return c.json({ ok: true as const, endpoint: endpointView(row) }, 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/api/webhooks/endpoints/{id}",
    summary: "Change an endpoint's URL, subscriptions, or pause it (active: false) and resume it",
    middleware: [routeLimit("webhook-endpoints-update"), jsonBody],
    request: {
      params: IdParam(EndpointId),
      body: jsonRequest(
        z.strictObject({
          url: z.string().max(2048).optional(),
          event_types: EventTypes.optional(),
          active: z.boolean().optional(),
        }),
      ),
    },
    responses: {
      200: json(okWith({ endpoint: EndpointSchema }), "Updated"),
      ...errorResponses("invalid_body", "no_fields_to_update", "unauthenticated", "role_forbidden", "not_found"),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { row, access } = await endpointAccess(c, c.req.valid("param").id);
    if (input.url === undefined && input.event_types === undefined && input.active === undefined) {
      throw new AppError("no_fields_to_update");
    }
    const changes: Partial<EndpointRow> = { updatedAt: Date.now() };
    if (input.url !== undefined) changes.url = guardUrl(c, input.url);
    if (input.event_types !== undefined) changes.eventTypes = JSON.stringify([...new Set(input.event_types)]);
    if (input.active !== undefined) changes.active = input.active;
    const { db } = access;
    await db.batch([
      db.update(webhookEndpoints).set(changes).where(eq(webhookEndpoints.id, row.id)),
      logEntry(db, {
        projectId: row.projectId,
        actor: access.actor,
        eventType: "webhook_endpoint.updated",
        targetId: row.id,
        detail: { ...input },
      }),
    ]);
    if (input.active === true && !row.active) await kickEndpoints(c.env, [row.id]); // resumed: deliver what waited
    return c.json({ ok: true as const, endpoint: endpointView({ ...row, ...changes }) }, 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/webhooks/endpoints/{id}",
    summary: "Delete an endpoint (rotate a secret by deleting and registering again)",
    middleware: [routeLimit("webhook-endpoints-delete")],
    request: { params: IdParam(EndpointId) },
    responses: {
      200: json(okWith({ deleted: z.string() }), "Deleted"),
      ...errorResponses("invalid_id", "not_found", "role_forbidden"),
    },
  }),
  async (c) => {
    const { row, access } = await endpointAccess(c, c.req.valid("param").id);
    const { db } = access;
    await db.batch([
      db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, row.id)),
      logEntry(db, {
        projectId: row.projectId,
        actor: access.actor,
        eventType: "webhook_endpoint.deleted",
        targetId: row.id,
        detail: { url: row.url },
      }),
    ]);
    return c.json({ ok: true as const, deleted: row.id }, 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/webhooks/endpoints/{id}/test",
    summary: "Send a test.ping delivery to this endpoint",
    middleware: [routeLimit("webhook-endpoints-test")],
    request: { params: IdParam(EndpointId) },
    responses: {
      201: json(okWith({ event_id: z.string() }), "Queued"),
      ...errorResponses("invalid_id", "not_found", "role_forbidden"),
    },
  }),
  async (c) => {
    const { row, access } = await endpointAccess(c, c.req.valid("param").id);
    const id = newId("evt");
    const payload = JSON.stringify({ id, project_id: row.projectId, kind: "test.ping", envelope: null });
    await access.db.insert(outbox).values({
      id,
      projectId: row.projectId,
      eventType: "test.ping",
      payload,
      endpointId: row.id,
      createdAt: Date.now(),
    });
    await dispatch(c.env, [id]);
    return c.json({ ok: true as const, event_id: id }, 201);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/webhooks/deliveries",
    summary: "The delivery log of a project (newest first): status code, attempts, next retry, success, error",
    middleware: [routeLimit("webhook-deliveries")],
    request: {
      query: z.strictObject({ project_id: ProjectId, endpoint_id: EndpointId.optional(), limit: PageQuery.limit }),
    },
    responses: {
      200: json(okWith({ deliveries: z.array(DeliverySchema) }), "Deliveries"),
      ...errorResponses("invalid_query", "unauthenticated", "role_forbidden", "not_found"),
    },
  }),
  async (c) => {
    const { project_id, endpoint_id, limit = DEFAULT_LIMIT } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    atLeast(access, "admin");
    const rows = await access.db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.projectId, project_id),
          endpoint_id ? eq(webhookDeliveries.endpointId, endpoint_id) : undefined,
        ),
      )
      .orderBy(desc(webhookDeliveries.createdAt))
      .limit(limit);
    return c.json({ ok: true as const, deliveries: rows.map(deliveryView) }, 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/webhooks/deliveries/{id}/retry",
    summary:
      "Retry a delivery now (rule 11): the endpoint must be in the project, active, and the delivery not succeeded",
    middleware: [routeLimit("webhook-retry"), jsonBody],
    request: { params: IdParam(DeliveryId), body: jsonRequest(z.strictObject({ project_id: ProjectId })) },
    responses: {
      200: json(okWith({ delivery: DeliverySchema }), "Attempted; the delivery row says how it went"),
      ...errorResponses(
        "invalid_body",
        "not_found",
        "endpoint_not_in_project",
        "endpoint_paused",
        "already_succeeded",
        "role_forbidden",
      ),
    },
  }),
  async (c) => {
    const { project_id } = c.req.valid("json");
    const access = await projectAccess(c, project_id, { write: true });
    atLeast(access, "admin");
    const { db } = access;
    const delivery = await db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, c.req.valid("param").id))
      .get();
    const endpoint =
      delivery && (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, delivery.endpointId)).get());
    if (!delivery || !endpoint) throw new AppError("not_found");
    if (endpoint.projectId !== project_id) throw new AppError("endpoint_not_in_project");
    if (!endpoint.active) throw new AppError("endpoint_paused");
    if (delivery.state === "succeeded") throw new AppError("already_succeeded");
    const ns = c.env.WEBHOOK_DISPATCHER;
    await ns.get(ns.idFromName(endpoint.id)).retryNow(endpoint.id, delivery.id);
    const after = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id)).get();
    return c.json({ ok: true as const, delivery: deliveryView(after ?? delivery) }, 200);
  },
);
