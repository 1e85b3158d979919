// The periodic reconciler (Cron Trigger, and POST /api/cron/reconcile with CRON_SECRET): pending pledges past
// expires_at resolve to the deterministic expired_unresolved outcome (same pledge → same outcome id, so a second
// or concurrent run registers nothing twice), pending events are fanned out, and every endpoint with due
// deliveries gets its alarm re-armed (a lost alarm would otherwise sleep forever, FLT-04); log leaves written without
// their hash are hashed in bounded slices (registry/leaf-hashes.ts), and every log behind its leaves has its
// integrator poked (log/catch-up.ts); payment processor event ids older than their retention are forgotten.
import { and, asc, lte } from "drizzle-orm";
import { type Db, orm } from "../../../shared/db/client";
import { envelopes } from "../../../shared/db/schema";
import { expiredUnresolvedOutcome, isExpiryDue, type PledgeEnvelope } from "../../../shared/envelopes/pledge";
import { storedFields } from "../../../shared/envelopes/stored-fields";
import { AppError } from "../../../shared/errors";
import { isoSeconds } from "../../../shared/time";
import { forgetOldProcessorEvents } from "./billing/ledger";
import type { FleetBindings } from "./env";
import { catchUpLogs } from "./log/catch-up";
import { envelopeIn } from "./registry/conditions";
import { hashLeaves } from "./registry/leaf-hashes";
import { isPendingPledge } from "./registry/pledge-rows";
import { pledgeMovesTo } from "./registry/pledge-state";
import { shardsOf } from "./registry/shards";
import { register } from "./registry/store";
import { dispatch, endpointsWithDueWork, kickEndpoints } from "./webhooks/dispatch";

/** Pending pledges looked at per run; a backlog resolves over successive runs. */
export const RECONCILE_BATCH = 200;

export interface ReconcileReport {
  expired: number;
  rearmed: number;
  /** Log leaves from before registrations carried their hash, hashed by this run. */
  leaves_hashed: number;
  /** Projects whose log was behind its leaves: their integrator was poked (log/catch-up.ts). */
  logs_behind: number;
}

async function expirePledges(db: Db, now: number): Promise<number> {
  const pending = await db
    .select()
    .from(envelopes)
    // Due ones only, soonest first: a batch of pledges not yet due can never stand before one that is. A pledge's
    // expires_at is ISO 8601 UTC at second precision (its grammar), so text order is time order.
    .where(and(isPendingPledge, lte(envelopes.expiresAt, isoSeconds(now))))
    .orderBy(asc(envelopes.expiresAt))
    .limit(RECONCILE_BATCH);
  let expired = 0;
  for (const row of pending) {
    const pledge = JSON.parse(row.body) as PledgeEnvelope;
    if (!isExpiryDue(pledge, "pending", now)) continue;
    const outcome = await expiredUnresolvedOutcome(pledge);
    try {
      await register(
        db,
        { projectId: row.projectId, id: outcome.id, body: outcome.canonicalJson, ...storedFields(outcome) },
        {
          conditions: [envelopeIn(row.projectId, pledge.id, ["pledge"], "pending", "pledge_not_pending")],
          also: pledgeMovesTo(db, row.projectId, pledge.id, "expired_unresolved"),
        },
      );
      expired += 1;
    } catch (err) {
      // Another run registered this very outcome, or a resolution landed since the read: nothing to do.
      if (!(err instanceof AppError && ["already_registered", "pledge_not_pending"].includes(err.reason))) throw err;
    }
  }
  return expired;
}

export async function reconcile(env: FleetBindings, now = Date.now()): Promise<ReconcileReport> {
  // Each sweep runs on every registry shard; a shard's rows never meet another's.
  const shards = shardsOf(env);
  const sum = (counts: number[]) => counts.reduce((a, b) => a + b, 0);
  const expired = sum(await Promise.all(shards.map((shard) => expirePledges(orm(shard.db), now))));
  await dispatch(env);
  const due = await endpointsWithDueWork(env, now);
  await kickEndpoints(env, due);
  const leavesHashed = sum(await Promise.all(shards.map((shard) => hashLeaves(orm(shard.db)))));
  // After the outcomes and the hashing above, which add leaves of their own.
  const logsBehind = await catchUpLogs(env);
  await Promise.all(shards.map((shard) => forgetOldProcessorEvents(shard.db, now)));
  return { expired, rearmed: due.length, leaves_hashed: leavesHashed, logs_behind: logsBehind };
}
