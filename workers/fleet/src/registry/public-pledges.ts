// The public pledge reads (`GET /api/pledges/{id}`, `?swearer=`): the one registry read that crosses projects, and
// so shards (docs/scale.md "Writes: shard by project"). Each shard is asked in parallel on the pledge-only partial
// indexes of migration 0013 (one to three index reads each); no global index is written beside a registration.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../../../shared/db/client";
import { envelopes } from "../../../../shared/db/schema";
import { isPledge, isResolution } from "./pledge-rows";
import { readEveryShard, shardsOf } from "./shards";
import type { EnvelopeRow } from "./store";

/** At most this many pledges answer `?swearer=` (the oldest first). */
export const SWEARER_PLEDGES = 200;

/**
 * In one database: the pledge as the first-resolved project holds it, with that resolution's time (one statement,
 * as before shards: the first resolution is a subquery), else as first registered.
 */
async function pledgeIn(db: Db, id: string): Promise<{ row: EnvelopeRow; resolvedAt: number | null } | undefined> {
  const firstResolution = <T extends typeof envelopes.projectId | typeof envelopes.createdAt>(column: T) =>
    db
      .select({ value: column })
      .from(envelopes)
      .where(and(eq(envelopes.pledgeId, id), isResolution))
      .orderBy(asc(envelopes.seq))
      .limit(1);
  const resolved = await db
    .select({ row: envelopes, resolvedAt: sql<number>`(${firstResolution(envelopes.createdAt)})` })
    .from(envelopes)
    .where(and(isPledge, eq(envelopes.id, id), eq(envelopes.projectId, firstResolution(envelopes.projectId))))
    .get();
  if (resolved) return resolved;
  const row = await db
    .select()
    .from(envelopes)
    .where(and(isPledge, eq(envelopes.id, id)))
    .orderBy(asc(envelopes.seq))
    .get();
  return row ? { row, resolvedAt: null } : undefined;
}

/** Earlier first; a resolved pledge before an unresolved one. Pure. */
export function firstPublic<T extends { row: { createdAt: number }; resolvedAt: number | null }>(
  found: readonly T[],
): T | undefined {
  const key = (f: T) => [f.resolvedAt === null ? 1 : 0, f.resolvedAt ?? f.row.createdAt] as const;
  return [...found].sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1])[0];
}

/**
 * The public record of a pledge registered in any number of projects (docs/decisions.md, "Public pledge state"):
 * outcomes and abandonments are signed by the swearer or an authorised resolver and verified on registration, so
 * any valid one counts wherever it was registered. The answer is the pledge as stored in the project whose
 * resolution was registered first (so its status is that resolution's), or, with none, as first registered. Within
 * a shard "first" is the registration order; across shards, the time of registration.
 */
export async function publicPledge(env: object, id: string): Promise<EnvelopeRow | undefined> {
  const found = await readEveryShard(env, async (db) => {
    const one = await pledgeIn(db, id);
    return one ? [one] : [];
  });
  return firstPublic(found)?.row;
}

/** The ids of a swearer's pledges, oldest first, at most SWEARER_PLEDGES. */
export async function pledgeIdsOf(env: object, swearer: string): Promise<string[]> {
  const rows = await readEveryShard(env, (db) =>
    db
      .select({ id: envelopes.id, createdAt: envelopes.createdAt })
      .from(envelopes)
      .where(and(isPledge, eq(envelopes.swearer, swearer)))
      .orderBy(asc(envelopes.seq))
      .limit(SWEARER_PLEDGES),
  );
  if (shardsOf(env).length > 1) rows.sort((a, b) => a.createdAt - b.createdAt);
  return [...new Set(rows.map((r) => r.id))].slice(0, SWEARER_PLEDGES);
}
