// What an account holds in the fleet's registry (issue 46): fleet membership is by Bitcoin address, so an account's
// projects are those whose members name one of its addresses, read on every registry shard. Leaving asks which of
// the projects it owns have other members (refused until transferred) and which it owns alone (they go with it);
// the data download lists every membership.
import { and, eq, inArray, notInArray, sql } from "drizzle-orm";
import { orm } from "./client";
import type { Shard } from "./registry-shards";
import { adminLog, apiTokens, members, projects } from "./schema";

export interface Membership {
  project_id: string;
  project_name: string;
  address: string;
  role: string;
  owner_address: string;
  archived: boolean;
  joined_at: number;
}

export interface Holdings {
  memberships: Membership[];
  /** Projects an address of the account owns that name a member outside the account: leaving is refused. */
  shared: { project_id: string; project_name: string; other_members: number }[];
  /** Projects an address of the account owns with no member outside the account: they go with it. */
  sole: { project_id: string; project_name: string; shard: number }[];
}

/** The account's memberships on one shard, and how many members outside the account each owned project has. */
async function onShard(shard: Shard, addresses: string[]) {
  const db = orm(shard.db);
  const rows = await db
    .select({
      projectId: members.projectId,
      name: projects.name,
      address: members.address,
      role: members.role,
      ownerAddress: projects.ownerAddress,
      archivedAt: projects.archivedAt,
      createdAt: members.createdAt,
    })
    .from(members)
    .innerJoin(projects, eq(projects.id, members.projectId))
    .where(inArray(members.address, addresses))
    .orderBy(members.createdAt);
  const owned = [...new Set(rows.filter((r) => r.role === "owner").map((r) => r.projectId))];
  const others =
    owned.length === 0
      ? []
      : await db
          .select({ projectId: members.projectId, n: sql<number>`count(*)` })
          .from(members)
          .where(and(inArray(members.projectId, owned), notInArray(members.address, addresses)))
          .groupBy(members.projectId);
  return { rows, owned, others: new Map(others.map((o) => [o.projectId, o.n])) };
}

/** Every membership of `addresses` across the shards, and the projects they own, shared or alone. */
export async function fleetHoldings(shards: readonly Shard[], addresses: readonly string[]): Promise<Holdings> {
  const held: Holdings = { memberships: [], shared: [], sole: [] };
  if (addresses.length === 0) return held;
  const found = await Promise.all(shards.map((shard) => onShard(shard, [...addresses])));
  found.forEach(({ rows, owned, others }, i) => {
    for (const r of rows) {
      held.memberships.push({
        project_id: r.projectId,
        project_name: r.name,
        address: r.address,
        role: r.role,
        owner_address: r.ownerAddress,
        archived: r.archivedAt !== null,
        joined_at: r.createdAt,
      });
    }
    for (const projectId of owned) {
      const project_name = rows.find((r) => r.projectId === projectId)?.name ?? "";
      const other_members = others.get(projectId) ?? 0;
      if (other_members > 0) held.shared.push({ project_id: projectId, project_name, other_members });
      else held.sole.push({ project_id: projectId, project_name, shard: shards[i]?.index ?? 0 });
    }
  });
  return held;
}

/**
 * The writes that take a project owned alone with its erased owner: archived (its signed envelopes and log stay, as
 * every project's do), its members (the owner's own addresses) removed and its tokens revoked, so no later holder
 * of those addresses finds it, with the admin-log line in the same batch.
 */
export function retireSoleProject(shard: Shard, projectId: string, now: number) {
  const db = orm(shard.db);
  return db.batch([
    db.update(projects).set({ archivedAt: now, updatedAt: now }).where(eq(projects.id, projectId)),
    db.delete(members).where(eq(members.projectId, projectId)),
    db
      .update(apiTokens)
      .set({ revokedAt: now })
      .where(and(eq(apiTokens.projectId, projectId), sql`${apiTokens.revokedAt} is null`)),
    db.insert(adminLog).values({
      projectId,
      actor: "account.erased",
      eventType: "project.archived",
      targetId: projectId,
      detail: JSON.stringify({ reason: "the owner's account was deleted" }),
      createdAt: now,
    }),
  ]);
}
