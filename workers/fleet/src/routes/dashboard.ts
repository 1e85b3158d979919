// The dashboard is static assets under /dashboard/ (workers/fleet/dashboard); the worker adds the root redirect and
// what the page cannot know by itself: where the auth host's sign-in page is, and the admin log's event types and
// the pledge states its filters offer (one list each, the server's).
import { createRoute, z } from "@hono/zod-openapi";
import { PLEDGE_STATUSES } from "../../../../shared/envelopes/pledge";
import { json } from "../../../../shared/http/openapi";
import { routeGroup } from "../../../../shared/validate";
import { ADMIN_EVENTS } from "../admin-log";
import type { FleetEnv } from "../env";
import { projectPlaces } from "../registry/shards";

export const dashboardRoutes = routeGroup<FleetEnv>();

dashboardRoutes.openapi(
  createRoute({
    method: "get",
    path: "/",
    summary: "To the dashboard",
    responses: { 302: { description: "Redirect to /dashboard/" } },
  }),
  (c) => c.redirect("/dashboard/", 302),
);

const DashboardConfig = z
  .object({
    ok: z.literal(true),
    auth_origin: z.string().openapi({ description: "The auth host, whose /signin the dashboard sends a person to" }),
    admin_events: z.array(z.string()),
    pledge_states: z.array(z.string()),
    project_places: z.array(z.string()).openapi({
      description: "The places a new project can be created in (its registry database's), the default first",
    }),
  })
  .openapi("DashboardConfig");

dashboardRoutes.openapi(
  createRoute({
    method: "get",
    path: "/dashboard/config.json",
    summary: "What the dashboard needs from the server: the sign-in origin and its filters' lists",
    responses: { 200: json(DashboardConfig, "The dashboard's settings") },
  }),
  (c) =>
    c.json(
      {
        ok: true as const,
        auth_origin: c.env.AUTH_ORIGIN,
        admin_events: [...ADMIN_EVENTS],
        pledge_states: [...PLEDGE_STATUSES],
        project_places: projectPlaces(c.env),
      },
      200,
    ),
);
