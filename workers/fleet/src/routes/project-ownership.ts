// A project's owner-only changes: archive it (it stays readable) and transfer its ownership to another address (the
// previous owner becomes an admin), each with its admin-log entry in the same batch.
import { createRoute } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { members, projects } from "../../../../shared/db/schema";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { atLeast, projectAccess } from "../access";
import { normalizeAddress } from "../addresses";
import { changeWithLog, logEntry } from "../admin-log";
import type { FleetEnv } from "../env";
import { newId } from "../ids";
import { routeLimit } from "../limits";
import { IdParam, okWith, ProjectId, ProjectSchema, TransferBody } from "../schemas";
import { projectView } from "../views";

export const projectOwnershipRoutes = routeGroup<FleetEnv>();
const ProjectResult = okWith({ project: ProjectSchema });

projectOwnershipRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/projects/{id}",
    summary: "Archive a project (owner only); it stays readable",
    middleware: [routeLimit("projects-archive")],
    request: { params: IdParam(ProjectId) },
    responses: {
      200: json(ProjectResult, "Archived"),
      ...errorResponses("invalid_id", "unauthenticated", "owner_required", "not_found"),
    },
  }),
  async (c) => {
    const access = await projectAccess(c, c.req.valid("param").id, { write: true });
    atLeast(access, "owner");
    const { db, project } = access;
    const now = Date.now();
    await changeWithLog(
      access,
      db.update(projects).set({ archivedAt: now, updatedAt: now }).where(eq(projects.id, project.id)),
      { eventType: "project.archived", targetId: project.id },
    );
    return c.json(
      { ok: true as const, project: projectView({ ...project, archivedAt: now, updatedAt: now }, access.shard.place) },
      200,
    );
  },
);

projectOwnershipRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/projects/{id}/transfer",
    summary: "Transfer ownership to another address (owner only); the previous owner becomes an admin",
    middleware: [routeLimit("projects-transfer"), jsonBody],
    request: { params: IdParam(ProjectId), body: jsonRequest(TransferBody) },
    responses: {
      200: json(ProjectResult, "Transferred"),
      ...errorResponses("invalid_body", "unauthenticated", "owner_required", "not_found"),
    },
  }),
  async (c) => {
    const address = normalizeAddress(c.req.valid("json").address);
    const access = await projectAccess(c, c.req.valid("param").id, { write: true });
    atLeast(access, "owner");
    const { db, project } = access;
    if (address === project.ownerAddress)
      return c.json({ ok: true as const, project: projectView(project, access.shard.place) }, 200);
    const now = Date.now();
    await db.batch([
      db.update(projects).set({ ownerAddress: address, updatedAt: now }).where(eq(projects.id, project.id)),
      db
        .insert(members)
        .values({ id: newId("mem"), projectId: project.id, address, role: "owner", createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: [members.projectId, members.address], set: { role: "owner", updatedAt: now } }),
      db
        .update(members)
        .set({ role: "admin", updatedAt: now })
        .where(and(eq(members.projectId, project.id), eq(members.address, project.ownerAddress))),
      logEntry(db, {
        projectId: project.id,
        actor: access.actor,
        eventType: "project.transferred",
        targetId: project.id,
        detail: { from: project.ownerAddress, to: address },
      }),
    ]);
    return c.json(
      {
        ok: true as const,
        project: projectView({ ...project, ownerAddress: address, updatedAt: now }, access.shard.place),
      },
      200,
    );
  },
);
