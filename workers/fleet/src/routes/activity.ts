// A project's activity over a window (issue 30): registrations by kind, the log's size and the requests its rate
// limits refused, from the hourly roll-ups (activity/): at most three range reads, whatever the project registered
// (rows read: the window's hours × the kinds registered in them, plus its refusal rows and the log's state).
// Project members read it.
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { routeGroup } from "../../../../shared/validate";
import { projectAccess } from "../access";
import { ActivityAnswer, WindowQuery } from "../activity/schemas";
import { activitySeries } from "../activity/series";
import { readActivity } from "../activity/store";
import { windowAt, windowView } from "../activity/windows";
import type { FleetEnv } from "../env";
import { FLEET_CALLER_SHARE_RULE, FLEET_PROJECT_RULE, routeLimit } from "../limits";
import { IdParam, ProjectId } from "../schemas";

export const activityRoutes = routeGroup<FleetEnv>();

const perMinute = (rule: { capacity: number; windowMs: number }) =>
  Math.round((rule.capacity * 60_000) / rule.windowMs);

activityRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/projects/{id}/activity",
    summary: "The project's registrations by kind, its log's size and its refused requests over a window (UTC)",
    middleware: [routeLimit("project-activity")],
    request: { params: IdParam(ProjectId), query: z.strictObject(WindowQuery) },
    responses: {
      200: json(ActivityAnswer, "One point per hour or day of the window, every point present"),
      ...errorResponses("invalid_id", "invalid_query", "unauthenticated", "not_found"),
    },
  }),
  async (c) => {
    const projectId = c.req.valid("param").id;
    const access = await projectAccess(c, projectId);
    const window = windowAt(c.req.valid("query").window, Date.now());
    const rows = await readActivity(access.db, projectId, window.fromHour, window.toHour);
    return c.json(
      {
        ok: true as const,
        project_id: projectId,
        ...windowView(window),
        ...activitySeries(window, rows),
        log_size: rows.logSize,
        limits: {
          project_per_minute: perMinute(FLEET_PROJECT_RULE),
          caller_per_minute: perMinute(FLEET_CALLER_SHARE_RULE),
        },
      },
      200,
    );
  },
);
