// The delivery log of a project and the manual retry (service-spec Events, rule 11). The retry takes its project
// from the delivery row, as the spec's route has no body; a body naming another project is refused.
import { createRoute, z } from "@hono/zod-openapi";
import { and, desc, eq } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { optionalJsonBody, routeGroup } from "../../../../shared/validate";
import { atLeast, projectAccess } from "../access";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { DEFAULT_LIMIT, PageQuery } from "../pagination";
import { findOnShards } from "../registry/shards";
import { IdParam, okWith, ProjectId } from "../schemas";
import { DeliveryId, DeliverySchema, deliveryView, EndpointId } from "../webhooks/views";

export const webhookDeliveryRoutes = routeGroup<FleetEnv>();
const RetryBody = z.strictObject({ project_id: ProjectId.optional() }).openapi("WebhookRetry");

webhookDeliveryRoutes.openapi(
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

webhookDeliveryRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/webhooks/deliveries/{id}/retry",
    summary:
      "Retry a delivery now (rule 11): the endpoint must be in the project, active, and the delivery not succeeded",
    middleware: [routeLimit("webhook-retry"), optionalJsonBody],
    request: {
      params: IdParam(DeliveryId),
      body: { required: false, content: { "application/json": { schema: RetryBody } } },
    },
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
    const named = (c.req.valid("json") as z.infer<typeof RetryBody> | undefined)?.project_id;
    const found = await findOnShards(c.env, (db) =>
      db
        .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints, projectId: webhookEndpoints.projectId })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(eq(webhookDeliveries.id, c.req.valid("param").id))
        .get(),
    );
    if (!found) throw new AppError("not_found");
    const { delivery, endpoint } = found.row;
    const { db } = found;
    // Tenancy first: a caller who is not an admin of the delivery's project learns nothing (404).
    const access = await projectAccess(c, endpoint.projectId, { write: true });
    atLeast(access, "admin");
    if (named !== undefined && named !== endpoint.projectId) throw new AppError("endpoint_not_in_project");
    if (!endpoint.active) throw new AppError("endpoint_paused");
    if (delivery.state === "succeeded") throw new AppError("already_succeeded");
    const ns = c.env.WEBHOOK_DISPATCHER;
    await ns.get(ns.idFromName(endpoint.id)).retryNow(endpoint.id, delivery.id, found.shard.binding);
    const after = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id)).get();
    return c.json({ ok: true as const, delivery: deliveryView(after ?? delivery) }, 200);
  },
);
