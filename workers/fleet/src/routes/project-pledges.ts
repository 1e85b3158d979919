// GET /api/projects/{id}/pledges: the pledges a project registered, each with its state in that project (the
// stored status, which outcomes, abandonments and the reconciler move), for its members and its tokens. Registration
// order with the envelope lists' cursor; `?state=` keeps one state.
import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq, gt } from "drizzle-orm";
import { envelopes } from "../../../../shared/db/schema";
import { PLEDGE_STATUSES, type PledgeStatus } from "../../../../shared/envelopes/pledge";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { isoMs } from "../../../../shared/time";
import { routeGroup } from "../../../../shared/validate";
import { projectAccess } from "../access";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { DEFAULT_LIMIT, decodeSeqCursor, encodeSeqCursor, PageQuery } from "../pagination";
import { IdParam, listOf, ProjectId } from "../schemas";

export const projectPledgeRoutes = routeGroup<FleetEnv>();

const PledgeState = z
  .enum(PLEDGE_STATUSES)
  .openapi({ description: "pending until an outcome (its value), an abandonment (abandoned) or the reconciler" });

export const ProjectPledgeQuery = z.strictObject({ state: PledgeState.optional(), ...PageQuery });

export const ProjectPledge = z
  .object({
    id: z.string(),
    swearer: z.string(),
    state: PledgeState,
    expires_at: z.string(),
    registered_at: z.string(),
  })
  .openapi("ProjectPledge");

projectPledgeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/projects/{id}/pledges",
    summary: "The pledges registered in a project, in registration order, with their state there; ?state= filters",
    middleware: [routeLimit("project-pledges")],
    request: { params: IdParam(ProjectId), query: ProjectPledgeQuery },
    responses: {
      200: json(listOf("pledges", ProjectPledge), "A page of pledges"),
      ...errorResponses("invalid_id", "invalid_query", "unauthenticated", "not_found"),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const { state, limit = DEFAULT_LIMIT, cursor } = c.req.valid("query");
    const after = decodeSeqCursor(cursor);
    const access = await projectAccess(c, id);
    const rows = await access.db
      .select({
        seq: envelopes.seq,
        id: envelopes.id,
        swearer: envelopes.swearer,
        status: envelopes.status,
        expiresAt: envelopes.expiresAt,
        createdAt: envelopes.createdAt,
      })
      .from(envelopes)
      .where(
        and(
          eq(envelopes.projectId, id),
          eq(envelopes.kind, "pledge"),
          gt(envelopes.seq, after),
          state === undefined ? undefined : eq(envelopes.status, state),
        ),
      )
      .orderBy(asc(envelopes.seq))
      .limit(limit + 1);
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const pledges = items.map((row) => ({
      id: row.id,
      // A pledge row always has these: registration stores them from the parsed envelope (routes/pledges.ts).
      swearer: row.swearer ?? "",
      state: (row.status ?? "pending") as PledgeStatus,
      expires_at: row.expiresAt ?? "",
      registered_at: isoMs(row.createdAt),
    }));
    return c.json(
      { ok: true as const, pledges, next_cursor: rows.length > limit && last ? encodeSeqCursor(last.seq) : null },
      200,
    );
  },
);
