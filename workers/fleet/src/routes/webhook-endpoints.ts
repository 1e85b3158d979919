// Webhook endpoints (service-spec Events; DECISIONS 14-15): register (the signing secret appears once, in the 201),
// read, change, pause, delete, and send a test.ping. Admins and owners manage them.
import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { outbox, webhookEndpoints } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { checkEndpointUrl, newWebhookSecret, sealSecret } from "../../../../shared/webhooks";
import { atLeast, projectAccess } from "../access";
import { changeWithLog } from "../admin-log";
import type { FleetEnv } from "../env";
import { newId } from "../ids";
import { routeLimit } from "../limits";
import { findOnShards } from "../registry/shards";
import { IdParam, okWith, ProjectId } from "../schemas";
import { dispatch, kickEndpoints } from "../webhooks/dispatch";
import { EndpointId, type EndpointRow, EndpointSchema, EventTypes, endpointView } from "../webhooks/views";

export const webhookEndpointRoutes = routeGroup<FleetEnv>();
function guardUrl(c: Context<FleetEnv>, url: string): string {
  const checked = checkEndpointUrl(url, { allowLoopback: c.env.WEBHOOK_ALLOW_LOOPBACK === "true" });
  if (!checked.ok) throw new AppError("invalid_body", { detail: `url: ${checked.detail}` });
  return checked.url;
}

/** The endpoint `id` and the caller's access to its project, which must be admin or owner. */
export async function endpointAccess(c: Context<FleetEnv>, id: string, write = true) {
  const row = (
    await findOnShards(c.env, (db) => db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get())
  )?.row;
  if (!row) throw new AppError("not_found");
  const access = await projectAccess(c, row.projectId, { write });
  atLeast(access, "admin");
  return { row, access };
}

/** The key that seals endpoint secrets; 503 webhook_master_key_unset without a usable one. */
export function requireMasterKey(c: Context<FleetEnv>): string {
  const masterKey = c.env.WEBHOOK_MASTER_KEY;
  if (!masterKey || masterKey.length < 32) throw new AppError("webhook_master_key_unset");
  return masterKey;
}

webhookEndpointRoutes.openapi(
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

webhookEndpointRoutes.openapi(
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
    const masterKey = requireMasterKey(c);
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
      previousSecretSealed: null,
      previousSecretUntil: null,
      pausedAt: input.active === false ? now : null,
      createdAt: now,
      updatedAt: now,
    };
    await changeWithLog(access, access.db.insert(webhookEndpoints).values(endpoint), {
      eventType: "webhook_endpoint.created",
      targetId: endpoint.id,
      detail: { url },
    });
    return c.json({ ok: true as const, endpoint: endpointView(endpoint), secret }, 201);
  },
);

webhookEndpointRoutes.openapi(
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

webhookEndpointRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/api/webhooks/endpoints/{id}",
    summary:
      "Change an endpoint's URL, subscriptions, or pause it (active: false) and resume it; events registered while " +
      "it was paused are not sent on resume: recover them with POST /api/webhooks/endpoints/{id}/recover",
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
    const now = Date.now();
    const changes: Partial<EndpointRow> = { updatedAt: now };
    if (input.url !== undefined) changes.url = guardUrl(c, input.url);
    if (input.event_types !== undefined) changes.eventTypes = JSON.stringify([...new Set(input.event_types)]);
    if (input.active !== undefined) changes.active = input.active;
    if (input.active === false && row.active) changes.pausedAt = now;
    await changeWithLog(
      access,
      access.db.update(webhookEndpoints).set(changes).where(eq(webhookEndpoints.id, row.id)),
      {
        eventType: "webhook_endpoint.updated",
        targetId: row.id,
        detail: { ...input },
      },
    );
    if (input.active === true && !row.active) await kickEndpoints(c.env, [{ id: row.id, shard: access.shard.binding }]); // resumed: deliver what waited
    return c.json({ ok: true as const, endpoint: endpointView({ ...row, ...changes }) }, 200);
  },
);

webhookEndpointRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/webhooks/endpoints/{id}",
    summary: "Delete an endpoint",
    middleware: [routeLimit("webhook-endpoints-delete")],
    request: { params: IdParam(EndpointId) },
    responses: {
      200: json(okWith({ deleted: z.string() }), "Deleted"),
      ...errorResponses("invalid_id", "not_found", "role_forbidden"),
    },
  }),
  async (c) => {
    const { row, access } = await endpointAccess(c, c.req.valid("param").id);
    await changeWithLog(access, access.db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, row.id)), {
      eventType: "webhook_endpoint.deleted",
      targetId: row.id,
      detail: { url: row.url },
    });
    return c.json({ ok: true as const, deleted: row.id }, 200);
  },
);

webhookEndpointRoutes.openapi(
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
