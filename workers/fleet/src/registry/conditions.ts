// What a registration's write is conditional on. Each condition is an SQL truth the batch re-checks inside its own
// transaction (so a revocation, an archive or a demotion that lands between the request's checks and its write
// still wins), with the reason to answer when it does not hold. Reading which one failed costs a round trip, taken
// only when nothing was written.
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import { apiTokens, envelopes, members, projects } from "../../../../shared/db/schema";
import { AppError, type Reason } from "../../../../shared/errors";

export interface Condition {
  holds: SQL;
  reason: Reason;
  detail?: string;
  /** Called when this is the condition that failed (a cache forgets what it guessed). */
  onFail?: () => void;
}

const exists = (query: SQL) => sql`exists (${query})`;

/** The project exists and is not archived (archived projects are readable, not writable: 404 like any miss). */
export function projectWritable(projectId: string): Condition {
  return {
    holds: exists(
      sql`select 1 from ${projects} where ${projects.id} = ${projectId} and ${projects.archivedAt} is null`,
    ),
    reason: "not_found",
  };
}

/** The token is unrevoked, unexpired, and its creator still owns the token's project (DECISIONS 12). */
export function tokenLive(tokenId: string, now: number): Condition {
  return {
    holds: exists(
      sql`select 1 from ${apiTokens} join ${members} on ${members.projectId} = ${apiTokens.projectId}
        and ${members.address} = ${apiTokens.createdBy} and ${members.role} = 'owner'
        where ${apiTokens.id} = ${tokenId} and ${apiTokens.revokedAt} is null and ${apiTokens.expiresAt} > ${now}`,
    ),
    reason: "unauthenticated",
    detail: "API token unknown, revoked or expired",
  };
}

/** The address is still a member of the project in one of `roles`. */
export function memberIn(projectId: string, address: string, roles: readonly string[]): Condition {
  return {
    holds: exists(
      sql`select 1 from ${members} where ${and(
        eq(members.projectId, projectId),
        eq(members.address, address),
        inArray(members.role, [...roles]),
      )}`,
    ),
    reason: "not_found",
  };
}

/** The stored envelope `id` of `kinds` in the project is still in `status`. */
export function envelopeIn(
  projectId: string,
  id: string,
  kinds: readonly string[],
  status: string,
  reason: Reason,
): Condition {
  return {
    holds: exists(
      sql`select 1 from ${envelopes} where ${and(
        eq(envelopes.projectId, projectId),
        eq(envelopes.id, id),
        inArray(envelopes.kind, [...kinds]),
        eq(envelopes.status, status),
      )}`,
    ),
    reason,
    detail: `${id} is no longer ${status}`,
  };
}

/** The envelope is not registered in the project yet. */
export function notRegistered(projectId: string, id: string): Condition {
  return {
    holds: sql`not exists (select 1 from ${envelopes} where ${envelopes.projectId} = ${projectId} and ${envelopes.id} = ${id})`,
    reason: "already_registered",
    detail: `${id} is registered`,
  };
}

export const allHold = (conditions: readonly Condition[]): SQL =>
  sql.join(
    conditions.map((c) => sql`(${c.holds})`),
    sql` and `,
  );

/** One read: the first condition that does not hold now, in the order given. */
export async function firstFailing(db: Db, conditions: readonly Condition[]): Promise<Condition | undefined> {
  const columns = sql.join(
    conditions.map((c) => sql`(${c.holds})`),
    sql`, `,
  );
  const [values] = await db.values<number[]>(sql`select ${columns}`);
  return conditions.find((_, i) => !values?.[i]);
}

/** Throws the reason of the first failing condition; returns when every one holds again. */
export async function refuseFailing(db: Db, conditions: readonly Condition[]): Promise<void> {
  const failing = await firstFailing(db, conditions);
  failing?.onFail?.();
  if (failing) throw new AppError(failing.reason, failing.detail ? { detail: failing.detail } : {});
}
