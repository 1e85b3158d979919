// Projects: list, create, read, rename (the owner-only changes, archive and transfer, are in project-ownership.ts).
import { createRoute } from "@hono/zod-openapi";
import { and, asc, eq, inArray } from "drizzle-orm";
import { type Db, orm } from "../../../../shared/db/client";
import { members, projects } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { atLeast, projectAccess } from "../access";
import { changeWithLog } from "../admin-log";
import { requireCaller } from "../caller";
import type { FleetEnv } from "../env";
import { newId } from "../ids";
import { routeLimit } from "../limits";
import { afterCursor, DEFAULT_LIMIT, page } from "../pagination";
import { placeProject, projectPlaces, readEveryShard, rememberProjectShard } from "../registry/shards";
import {
  IdParam,
  ListQuery,
  listOf,
  okWith,
  ProjectCreate,
  ProjectId,
  ProjectPatch,
  ProjectSchema,
  Role,
} from "../schemas";
import { projectView } from "../views";

export const projectRoutes = routeGroup<FleetEnv>();
const ProjectResult = okWith({ project: ProjectSchema });

projectRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/projects",
    summary: "The projects the caller belongs to (a token: its own project)",
    middleware: [routeLimit("projects-list")],
    request: { query: ListQuery },
    responses: {
      200: json(listOf("projects", ProjectSchema), "A page of projects"),
      ...errorResponses("unauthenticated"),
    },
  }),
  async (c) => {
    const caller = requireCaller(c);
    const { limit = DEFAULT_LIMIT, cursor } = c.req.valid("query");
    // A token sees its own project, in its shard; a session its memberships, on every shard (one read each, in
    // parallel), merged in the one order the cursor follows.
    const visibleIn = (db: Db) =>
      caller.kind === "token"
        ? eq(projects.id, caller.projectId)
        : inArray(
            projects.id,
            db
              .select({ id: members.projectId })
              .from(members)
              .where(eq(members.address, caller.address ?? "")),
          );
    const rows = await readEveryShard(c.env, async (db, shard) => {
      const found = await db
        .select()
        .from(projects)
        .where(and(visibleIn(db), afterCursor(cursor, projects.createdAt, projects.id)))
        .orderBy(asc(projects.createdAt), asc(projects.id))
        .limit(limit + 1);
      return found.map((row) => ({ ...row, place: shard.place }));
    });
    rows.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const { items, next_cursor } = page(rows.slice(0, limit + 1), limit);
    return c.json({ ok: true as const, projects: items.map((p) => projectView(p, p.place)), next_cursor }, 200);
  },
);

projectRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/projects",
    summary: "Create a project; the caller's address becomes its owner",
    middleware: [routeLimit("projects-create"), jsonBody],
    request: { body: jsonRequest(ProjectCreate) },
    responses: {
      201: json(ProjectResult, "Created"),
      ...errorResponses("invalid_body", "unauthenticated", "role_forbidden"),
    },
  }),
  async (c) => {
    const caller = requireCaller(c);
    if (caller.kind !== "session" || !caller.address) {
      throw new AppError("role_forbidden", { detail: "projects are created by a signed-in Bitcoin account" });
    }
    const { name, location } = c.req.valid("json");
    const now = Date.now();
    const id = newId("proj");
    // The project's shard, for good: one of its place's databases (registry/shards.ts).
    const shard = placeProject(c.env, id, location);
    if (!shard) {
      throw new AppError("invalid_body", { detail: `location: one of ${projectPlaces(c.env).join(", ")}` });
    }
    const db = orm(shard.db);
    const project = {
      id,
      name,
      ownerAddress: caller.address,
      archivedAt: null,
      logPublicAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await db.batch([
      db.insert(projects).values(project),
      db.insert(members).values({
        id: newId("mem"),
        projectId: project.id,
        address: caller.address,
        role: "owner",
        createdAt: now,
        updatedAt: now,
      }),
    ]);
    rememberProjectShard(project.id, shard);
    return c.json({ ok: true as const, project: projectView(project, shard.place) }, 201);
  },
);

projectRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/projects/{id}",
    summary: "One project and the caller's role in it",
    middleware: [routeLimit("projects-read")],
    request: { params: IdParam(ProjectId) },
    responses: {
      200: json(okWith({ project: ProjectSchema, role: Role }), "The project"),
      ...errorResponses("invalid_id", "unauthenticated", "not_found"),
    },
  }),
  async (c) => {
    const access = await projectAccess(c, c.req.valid("param").id);
    return c.json(
      { ok: true as const, project: projectView(access.project, access.shard.place), role: access.role },
      200,
    );
  },
);

projectRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/api/projects/{id}",
    summary: "Rename a project (owner or admin)",
    middleware: [routeLimit("projects-update"), jsonBody],
    request: { params: IdParam(ProjectId), body: jsonRequest(ProjectPatch) },
    responses: {
      200: json(ProjectResult, "Updated"),
      ...errorResponses("invalid_body", "no_fields_to_update", "unauthenticated", "role_forbidden", "not_found"),
    },
  }),
  async (c) => {
    const { name } = c.req.valid("json");
    const access = await projectAccess(c, c.req.valid("param").id, { write: true });
    atLeast(access, "admin");
    if (name === undefined) throw new AppError("no_fields_to_update");
    const { db, project } = access;
    const now = Date.now();
    await changeWithLog(access, db.update(projects).set({ name, updatedAt: now }).where(eq(projects.id, project.id)), {
      eventType: "project.renamed",
      targetId: project.id,
      detail: { from: project.name, to: name },
    });
    return c.json(
      { ok: true as const, project: projectView({ ...project, name, updatedAt: now }, access.shard.place) },
      200,
    );
  },
);
