// Members: list and invite (both route forms), change a role, remove (rule 9). The database decides uniqueness
// (409 already_a_member) and the last-owner rule (a conditional write), so concurrent calls cannot break them.
import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context } from "hono";
import { members, projects } from "../../../../shared/db/schema";
import { asWriteFailure } from "../../../../shared/db/write-failure";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { type Access, atLeast, projectAccess, type Role } from "../access";
import { normalizeAddress } from "../addresses";
import { changeWithLog, type LogInput, logEntryIf } from "../admin-log";
import type { FleetEnv } from "../env";
import { newId } from "../ids";
import { routeLimit } from "../limits";
import { afterCursor, DEFAULT_LIMIT, PageQuery, page } from "../pagination";
import { findOnShards } from "../registry/shards";
import {
  IdParam,
  listOf,
  MemberCreate,
  MemberId,
  MemberInvite,
  MemberPatch,
  MemberSchema,
  okWith,
  ProjectId,
  ProjectListQuery,
} from "../schemas";
import { memberView } from "../views";

export const memberRoutes = routeGroup<FleetEnv>();
const MemberResult = okWith({ member: MemberSchema });
const MEMBER_ERRORS = [
  "invalid_body",
  "unauthenticated",
  "role_forbidden",
  "owner_role_requires_owner",
  "not_found",
] as const;

/** Only an owner may mint, change or remove an owner (rule 9). */
function guardOwnerRole(access: Access, ...roles: (Role | string | undefined)[]) {
  atLeast(access, "admin");
  if (roles.includes("owner") && access.role !== "owner") throw new AppError("owner_role_requires_owner");
}

async function listMembers(c: Context<FleetEnv>, projectId: string, limit = DEFAULT_LIMIT, cursor?: string) {
  const access = await projectAccess(c, projectId);
  const rows = await access.db
    .select()
    .from(members)
    .where(and(eq(members.projectId, projectId), afterCursor(cursor, members.createdAt, members.id)))
    .orderBy(asc(members.createdAt), asc(members.id))
    .limit(limit + 1);
  const { items, next_cursor } = page(rows, limit);
  return { ok: true as const, members: items.map(memberView), next_cursor };
}

async function invite(c: Context<FleetEnv>, projectId: string, input: { address: string; role: Role }) {
  const address = normalizeAddress(input.address);
  const access = await projectAccess(c, projectId, { write: true });
  guardOwnerRole(access, input.role);
  const now = Date.now();
  const member = { id: newId("mem"), projectId, address, role: input.role, createdAt: now, updatedAt: now };
  const { db } = access;
  try {
    await changeWithLog(access, db.insert(members).values(member), {
      eventType: "member.created",
      targetId: member.id,
      detail: { address, role: input.role },
    });
  } catch (err) {
    if (String(err).includes("UNIQUE")) throw new AppError("already_a_member");
    throw err;
  }
  return { ok: true as const, member: memberView(member) };
}

async function memberAccess(c: Context<FleetEnv>, id: string) {
  const found = await findOnShards(c.env, (db) => db.select().from(members).where(eq(members.id, id)).get());
  if (!found) throw new AppError("not_found");
  const { row } = found;
  return { row, access: await projectAccess(c, row.projectId, { write: true }) };
}

/**
 * Keeps `projects.owner_address` naming an owner after an owner was demoted or removed: when it no longer does,
 * it becomes the longest-standing remaining owner. In the change's own batch, so the two never disagree.
 */
const syncOwnerAddress = (access: Access, projectId: string) => {
  const owners = sql`select ${members.address} from ${members} where ${members.projectId} = ${projectId} and ${members.role} = 'owner'`;
  return access.db
    .update(projects)
    .set({
      ownerAddress: sql`coalesce((${owners} order by ${members.createdAt}, ${members.id} limit 1), ${projects.ownerAddress})`,
    })
    .where(and(eq(projects.id, projectId), sql`${projects.ownerAddress} not in (${owners})`));
};

/**
 * A change to a membership that must keep an owner (`change` is conditional on it and returns what it changed),
 * with its log line, written only when the change took effect (`applied`), and the owner address kept in step:
 * one batch. True when the change took effect.
 */
async function changeMembership(
  access: Access,
  row: { id: string; projectId: string },
  change: BatchItem<"sqlite">,
  entry: Pick<LogInput, "eventType" | "detail">,
  applied: SQL,
): Promise<boolean> {
  const { db } = access;
  const log = logEntryIf(db, { ...entry, projectId: row.projectId, actor: access.actor, targetId: row.id }, applied);
  const [changed] = await asWriteFailure("update_failed", () =>
    db.batch([change, log, syncOwnerAddress(access, row.projectId)]),
  );
  return Array.isArray(changed) && changed.length > 0;
}

/** SQL true when the project keeps another owner besides this member. */
const anotherOwner = (projectId: string, memberId: string) =>
  sql`exists (select 1 from ${members} where ${members.projectId} = ${projectId} and ${members.role} = 'owner' and ${members.id} != ${memberId})`;

for (const path of ["/api/members", "/api/projects/{id}/members", "/api/projects/{id}/invites"] as const) {
  const scoped = path !== "/api/members";
  memberRoutes.openapi(
    createRoute({
      method: "get",
      path,
      summary: "The members of a project",
      middleware: [routeLimit("members-list")],
      request: scoped
        ? { params: IdParam(ProjectId), query: z.strictObject({ ...PageQuery }) }
        : { query: ProjectListQuery },
      responses: {
        200: json(listOf("members", MemberSchema), "A page of members"),
        ...errorResponses("unauthenticated", "not_found"),
      },
    }),
    async (c) => {
      const query = c.req.query();
      const projectId = scoped ? c.req.param("id") : query.project_id;
      const { limit, cursor } = (c.req.valid as (t: "query") => { limit?: number; cursor?: string })("query");
      return c.json(await listMembers(c, projectId as string, limit, cursor), 200);
    },
  );
  memberRoutes.openapi(
    createRoute({
      method: "post",
      path,
      summary: "Invite an address with a role (admin or owner; only an owner may add an owner)",
      middleware: [routeLimit("members-invite"), jsonBody],
      request: scoped
        ? { params: IdParam(ProjectId), body: jsonRequest(MemberInvite) }
        : { body: jsonRequest(MemberCreate) },
      responses: { 201: json(MemberResult, "Invited"), ...errorResponses(...MEMBER_ERRORS, "already_a_member") },
    }),
    async (c) => {
      const input = (c.req.valid as (t: "json") => { address: string; role: Role; project_id?: string })("json");
      const projectId = scoped ? (c.req.param("id") as string) : (input.project_id as string);
      return c.json(await invite(c, projectId, input), 201);
    },
  );
}

memberRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/api/members/{id}",
    summary: "Change a member's role (rule 9: owner changes need an owner; the last owner cannot be demoted)",
    middleware: [routeLimit("members-update"), jsonBody],
    request: { params: IdParam(MemberId), body: jsonRequest(MemberPatch) },
    responses: {
      200: json(MemberResult, "Updated"),
      ...errorResponses(...MEMBER_ERRORS, "no_fields_to_update", "last_owner_cannot_demote"),
    },
  }),
  async (c) => {
    const { role } = c.req.valid("json");
    const { row, access } = await memberAccess(c, c.req.valid("param").id);
    if (role === undefined) throw new AppError("no_fields_to_update");
    guardOwnerRole(access, role, row.role);
    const { db } = access;
    const now = Date.now();
    const keepsAnOwner = row.role === "owner" && role !== "owner" ? anotherOwner(row.projectId, row.id) : sql`1`;
    const updated = await changeMembership(
      access,
      row,
      db
        .update(members)
        .set({ role, updatedAt: now })
        .where(and(eq(members.id, row.id), keepsAnOwner))
        .returning(),
      { eventType: "member.updated", detail: { from: row.role, to: role } },
      sql`exists (select 1 from ${members} where ${members.id} = ${row.id} and ${members.updatedAt} = ${now})`,
    );
    if (!updated) throw new AppError("last_owner_cannot_demote");
    return c.json({ ok: true as const, member: memberView({ ...row, role, updatedAt: now }) }, 200);
  },
);

memberRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/members/{id}",
    summary: "Remove a member (an owner only by an owner; never the last owner)",
    middleware: [routeLimit("members-delete")],
    request: { params: IdParam(MemberId) },
    responses: {
      200: json(okWith({ deleted: z.string() }), "Removed"),
      ...errorResponses(...MEMBER_ERRORS, "last_owner_cannot_remove"),
    },
  }),
  async (c) => {
    const { row, access } = await memberAccess(c, c.req.valid("param").id);
    guardOwnerRole(access, row.role);
    const { db } = access;
    const keepsAnOwner = row.role === "owner" ? anotherOwner(row.projectId, row.id) : sql`1`;
    const deleted = await changeMembership(
      access,
      row,
      db
        .delete(members)
        .where(and(eq(members.id, row.id), keepsAnOwner))
        .returning(),
      { eventType: "member.deleted", detail: { address: row.address, role: row.role } },
      sql`not exists (select 1 from ${members} where ${members.id} = ${row.id})`,
    );
    if (!deleted) throw new AppError("last_owner_cannot_remove");
    return c.json({ ok: true as const, deleted: row.id }, 200);
  },
);
