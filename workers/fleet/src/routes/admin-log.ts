// GET /api/admin/log: the project's privilege-changing operations, newest first (admins and owners).
import { createRoute } from "@hono/zod-openapi";
import { and, desc, eq, lt } from "drizzle-orm";
import { adminLog } from "../../../../shared/db/schema";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { isoMs } from "../../../../shared/time";
import { routeGroup } from "../../../../shared/validate";
import { atLeast, projectAccess } from "../access";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { DEFAULT_LIMIT } from "../pagination";
import { AdminLogEntry, AdminLogQuery, listOf } from "../schemas";

export const adminLogRoutes = routeGroup<FleetEnv>();

adminLogRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/admin/log",
    summary: "The admin log of a project; `before` pages back by sequence number",
    middleware: [routeLimit("admin-log")],
    request: { query: AdminLogQuery },
    responses: {
      200: json(listOf("entries", AdminLogEntry), "Newest first; next_cursor is the `before` of the next page"),
      ...errorResponses("invalid_query", "unauthenticated", "role_forbidden", "not_found"),
    },
  }),
  async (c) => {
    const { project_id, limit = DEFAULT_LIMIT, before, event_type } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    atLeast(access, "admin");
    const rows = await access.db
      .select()
      .from(adminLog)
      .where(
        and(
          eq(adminLog.projectId, project_id),
          before === undefined ? undefined : lt(adminLog.seq, before),
          event_type === undefined ? undefined : eq(adminLog.eventType, event_type),
        ),
      )
      .orderBy(desc(adminLog.seq))
      .limit(limit + 1);
    const items = rows.slice(0, limit);
    const entries = items.map((r) => ({
      seq: r.seq,
      project_id: r.projectId,
      actor: r.actor,
      event_type: r.eventType,
      target_id: r.targetId,
      detail: r.detail ? (JSON.parse(r.detail) as Record<string, unknown>) : null,
      created_at: isoMs(r.createdAt),
    }));
    const last = items[items.length - 1];
    return c.json(
      { ok: true as const, entries, next_cursor: rows.length > limit && last ? String(last.seq) : null },
      200,
    );
  },
);
