// Tenancy and roles (DECISIONS 12): a caller sees a project only as its member (or through one of its tokens);
// anything else is 404 `not_found`, so existence is never leaked. Owner-only operations answer 403
// `owner_required`; other role limits 403 `role_forbidden`. A token's role is its scope's (roles.ts).
import { and, eq, isNull } from "drizzle-orm";
import type { Context } from "hono";
import { type Db, orm } from "../../../shared/db/client";
import { members, projects } from "../../../shared/db/schema";
import { AppError } from "../../../shared/errors";
import { noteProject } from "../../../shared/http/request-log";
import { requireCaller } from "./caller";
import type { Caller, FleetEnv } from "./env";
import { takeProjectToken } from "./limits";
import { forgetProjectShard, projectShard, remembered, type Shard } from "./registry/shards";
import { ROLES, type Role, scopeRole } from "./roles";

export { ROLES, type Role };

export type ProjectRow = typeof projects.$inferSelect;

export interface Access {
  caller: Caller;
  project: ProjectRow;
  role: Role;
  /** Who the admin log names: the session's address, or the token and the owner who created it. */
  actor: Actor;
  /** The project's registry database, and the shard it is (its binding and place). */
  db: Db;
  shard: Shard;
}

const rank = (role: Role) => ROLES.indexOf(role);

export function atLeast(access: Pick<Access, "role">, minimum: Role): void {
  if (rank(access.role) >= rank(minimum)) return;
  throw new AppError(minimum === "owner" ? "owner_required" : "role_forbidden");
}

/**
 * Owner work an API token may not do, even an owner-scope one (issue 26: a token minting tokens would outlive the
 * one-year cap forever; billing spends money): an owner, signed in. A token gets 403 `owner_required`.
 */
export function requireSignedInOwner(access: Access, what: string): void {
  atLeast(access, "owner");
  if (access.caller.kind !== "session") {
    throw new AppError("owner_required", { detail: `${what} needs a signed-in owner; an API token cannot` });
  }
}

/** The admin log's `actor` column is `id`; a change made with a token also names the token's creator. */
export interface Actor {
  id: string;
  tokenCreator?: string;
}

export function actorOf(caller: Caller): Actor {
  return caller.kind === "token"
    ? { id: caller.tokenId, tokenCreator: caller.address }
    : { id: caller.address ?? caller.accountId };
}

/** The caller's access to a project, or 404; archived projects are readable, not writable. */
export async function projectAccess(
  c: Context<FleetEnv>,
  projectId: string,
  options: { write?: boolean; spend?: boolean } = {},
): Promise<Access> {
  const caller = requireCaller(c);
  // The token's project is the only one it may see: a token for another project learns nothing, not even a shard.
  if (caller.kind === "token" && caller.projectId !== projectId) throw new AppError("not_found");
  let found = await accessIn(c, caller, projectId, options.write === true);
  // A remembered shard that no longer holds the project (moved): forget it and find the project again, once.
  if (!found.project && found.fromMemory) {
    forgetProjectShard(projectId);
    found = await accessIn(c, caller, projectId, options.write === true);
  }
  const { role, project, shard } = found;
  if (!role || !project) throw new AppError("not_found");
  noteProject(c, projectId);
  // `spend: false`: a route with a bucket of its own (the log's tiles: one primary-key read each).
  const db = orm(shard.db);
  if (options.spend !== false) await takeProjectToken(c, projectId, caller, db);
  return { caller, project, role, actor: actorOf(caller), db, shard };
}

interface Found {
  role?: Role;
  project?: ProjectRow;
  shard: Shard;
  fromMemory: boolean;
}

/** The caller's role and the project, read in the project's shard. */
async function accessIn(c: Context<FleetEnv>, caller: Caller, projectId: string, write: boolean): Promise<Found> {
  const fromMemory = remembered(c.env, projectId);
  const shard = await projectShard(c.env, projectId);
  if (!shard) throw new AppError("not_found");
  const db = orm(shard.db);
  const writable = write ? isNull(projects.archivedAt) : undefined;
  if (caller.kind === "token") {
    const project = await db
      .select()
      .from(projects)
      .where(and(eq(projects.id, projectId), writable))
      .get();
    return { role: scopeRole(caller.scope), project, shard, fromMemory };
  }
  if (!caller.address) return { shard, fromMemory };
  // One read: the caller's membership and the project it is in.
  const row = await db
    .select({ role: members.role, project: projects })
    .from(members)
    .innerJoin(projects, eq(projects.id, members.projectId))
    .where(and(eq(members.projectId, projectId), eq(members.address, caller.address), writable))
    .get();
  return { role: row?.role as Role | undefined, project: row?.project, shard, fromMemory };
}
