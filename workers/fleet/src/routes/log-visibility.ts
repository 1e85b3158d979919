// Who may read a project's log (issue 48 item 3): its members, or anyone. Its owner decides, signed in: making a log
// public hands every envelope in it, and every one registered while it stays public, to anyone who asks, and copies
// read meanwhile outlive a change back (docs/log.md "Public logs"), so an API token may not decide it, even an owner
// one. Each change is in the admin log, written in the same batch.
import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { projects } from "../../../../shared/db/schema";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { projectAccess, requireSignedInOwner } from "../access";
import { changeWithLog } from "../admin-log";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { IdParam, okWith, ProjectId, ProjectSchema } from "../schemas";
import { projectView } from "../views";

export const logVisibilityRoutes = routeGroup<FleetEnv>();

export const LogVisibility = z
  .strictObject({
    public: z
      .boolean()
      .openapi({ description: "true: anyone may read the log and its envelopes; false: members only" }),
  })
  .openapi("LogVisibility");

logVisibilityRoutes.openapi(
  createRoute({
    method: "put",
    path: "/api/projects/{id}/log-visibility",
    summary: "Make the project's log public or private again (a signed-in owner; not an API token)",
    description:
      "A public log's checkpoint, tiles and entry bundles are read by anyone, anonymous reads cached by the edge " +
      "(full tiles for a year) and listed at GET /api/logs/public. Making it private again refuses new anonymous " +
      "reads at once; copies already cached elsewhere are not recalled. An archived project may be made private, " +
      "not public. Setting the state it already has changes nothing and logs nothing.",
    middleware: [routeLimit("projects-log-visibility"), jsonBody],
    request: { params: IdParam(ProjectId), body: jsonRequest(LogVisibility) },
    responses: {
      200: json(okWith({ project: ProjectSchema }), "The project, with `log_public`"),
      ...errorResponses("invalid_body", "unauthenticated", "owner_required", "not_found"),
    },
  }),
  async (c) => {
    const wanted = c.req.valid("json").public;
    // Going public is a change an archived project no longer takes; withdrawing its log is not refused.
    const access = await projectAccess(c, c.req.valid("param").id, { write: wanted });
    requireSignedInOwner(access, "changing who may read the project's log");
    const { db, project } = access;
    if ((project.logPublicAt !== null) === wanted) {
      return c.json({ ok: true as const, project: projectView(project, access.shard.place) }, 200);
    }
    const now = Date.now();
    const logPublicAt = wanted ? now : null;
    await changeWithLog(
      access,
      db.update(projects).set({ logPublicAt, updatedAt: now }).where(eq(projects.id, project.id)),
      { eventType: wanted ? "project.log_made_public" : "project.log_made_private", targetId: project.id },
    );
    return c.json(
      { ok: true as const, project: projectView({ ...project, logPublicAt, updatedAt: now }, access.shard.place) },
      200,
    );
  },
);
