// Webhook delivery health and statistics (issue 30), from the hourly roll-ups the attempts write (activity/): a
// health line per endpoint of a project over the last 24 hours, and one endpoint's deliveries by outcome with
// attempt latency percentiles over a window. Admins and owners, as the endpoints themselves. Rows read: the
// project's endpoints (at most 100) and 24 hours of each; for one endpoint, the window's hours.
import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { webhookEndpoints } from "../../../../shared/db/schema";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { routeGroup } from "../../../../shared/validate";
import { atLeast, projectAccess } from "../access";
import { HEALTH_WINDOW, healthOf, lastFailureOf, outcomeTotals } from "../activity/health";
import { EndpointStatsAnswer, HealthAnswer, WindowQuery } from "../activity/schemas";
import { deliverySeries } from "../activity/series";
import { type DeliveryHourRow, readDeliveryHours } from "../activity/store";
import { pointOf, windowAt, windowView } from "../activity/windows";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { IdParam, ProjectId } from "../schemas";
import { EndpointId } from "../webhooks/views";
import { endpointAccess } from "./webhook-endpoints";

export const webhookStatsRoutes = routeGroup<FleetEnv>();

const iso = (ms: number) => new Date(ms).toISOString();
const failureView = (failure: ReturnType<typeof lastFailureOf>) =>
  failure ? { at: iso(failure.at), reason: failure.reason } : null;
/** The rows of the health window (the last 24 hours, the current one included). */
const recent = (rows: readonly DeliveryHourRow[], now: number) => {
  const window = windowAt(HEALTH_WINDOW, now);
  return rows.filter((r) => pointOf(window, r.hour) !== -1);
};

webhookStatsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/webhooks/health",
    summary: "A health line per webhook endpoint of a project, over the last 24 hours",
    middleware: [routeLimit("webhook-health")],
    request: { query: z.strictObject({ project_id: ProjectId }) },
    responses: {
      200: json(HealthAnswer, "Every endpoint of the project (at most 100), in creation order"),
      ...errorResponses("invalid_query", "unauthenticated", "role_forbidden", "not_found"),
    },
  }),
  async (c) => {
    const { project_id } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    atLeast(access, "admin");
    const window = windowAt(HEALTH_WINDOW, Date.now());
    const endpoints = await access.db
      .select({ id: webhookEndpoints.id, url: webhookEndpoints.url, active: webhookEndpoints.active })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.projectId, project_id))
      .orderBy(webhookEndpoints.createdAt)
      .limit(100);
    const ids = endpoints.map((e) => e.id);
    const rows = await readDeliveryHours(access.db, ids, window.fromHour, window.toHour);
    const lines = endpoints.map((endpoint) => {
      const own = rows.filter((r) => r.endpointId === endpoint.id);
      return {
        endpoint_id: endpoint.id,
        url: endpoint.url,
        active: endpoint.active,
        health: healthOf(endpoint.active, own),
        last_24h: outcomeTotals(own),
        last_failure: failureView(lastFailureOf(own)),
      };
    });
    return c.json({ ok: true as const, project_id, endpoints: lines }, 200);
  },
);

webhookStatsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/webhooks/endpoints/{id}/stats",
    summary: "One endpoint's delivery attempts by outcome and their latency over a window (UTC), with its health",
    middleware: [routeLimit("webhook-endpoint-stats")],
    request: { params: IdParam(EndpointId), query: z.strictObject(WindowQuery) },
    responses: {
      200: json(EndpointStatsAnswer, "One point per hour or day of the window, every point present"),
      ...errorResponses("invalid_id", "invalid_query", "unauthenticated", "role_forbidden", "not_found"),
    },
  }),
  async (c) => {
    const { row, access } = await endpointAccess(c, c.req.valid("param").id, false);
    const now = Date.now();
    const window = windowAt(c.req.valid("query").window, now);
    const rows = await readDeliveryHours(access.db, [row.id], window.fromHour, window.toHour);
    const series = deliverySeries(window, rows);
    return c.json(
      {
        ok: true as const,
        endpoint_id: row.id,
        project_id: row.projectId,
        ...windowView(window),
        health: healthOf(row.active, recent(rows, now)),
        ...series,
        last_failure: failureView(series.last_failure),
      },
      200,
    );
  },
);
