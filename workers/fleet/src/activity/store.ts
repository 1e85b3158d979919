// The activity roll-ups in a registry database (issue 30; d1-migrations/0014): the statements that add to them,
// each run in the same batch as what it counts, and the reads of a window, each a primary-key range (rows read =
// rows in the window, whatever the project registered).
import type { Db } from "../../../../shared/db/client";
import type { HourOutcomes } from "./health";
import { emptyHistogram, latencyBucket } from "./latency";
import { HOUR_MS } from "./windows";

/**
 * Counts the leaves an integration is about to cover, by their envelopes' hour and kind: those from the log's
 * stored size (read in the same transaction, so a leaf another integrator already covered is not counted again) up
 * to `toSize`. Goes before the state's write in the integration's batch.
 */
export function activityCountsStatement(db: Db, projectId: string, toSize: number): D1PreparedStatement {
  return db.$client
    .prepare(
      `insert into activity_hours (project_id, hour, kind, count)
       select project_id, created_at / ${HOUR_MS}, kind, count(*)
       from envelopes
       where project_id = ?1 and leaf_idx < ?2
         and leaf_idx >= coalesce((select size from log_state where project_id = ?1), 0)
       group by 1, 2, 3
       on conflict (project_id, hour, kind) do update set count = count + excluded.count`,
    )
    .bind(projectId, toSize);
}

export type AttemptOutcome = "succeeded" | "retried" | "failed";

export interface AttemptRecord {
  projectId: string;
  endpointId: string;
  at: number;
  outcome: AttemptOutcome;
  /** How long the request took, when one was sent. */
  latencyMs: number | null;
  /** The reason of a failed or retried attempt. */
  failure: string | null;
}

/** Adds one attempt to its endpoint's hour: the outcome's count, the latency bucket, the hour's last failure. */
export function attemptStatement(db: Db, record: AttemptRecord): D1PreparedStatement {
  const histogram = emptyHistogram();
  const bucket = record.latencyMs === null ? null : latencyBucket(record.latencyMs);
  if (bucket !== null) histogram[bucket] = 1;
  const path = bucket === null ? null : `$[${bucket}]`;
  const failedAt = record.failure === null ? null : record.at;
  const count = (outcome: AttemptOutcome) => (record.outcome === outcome ? 1 : 0);
  return db.$client
    .prepare(
      `insert into delivery_hours
         (endpoint_id, hour, project_id, succeeded, retried, failed, latency, last_failure_at, last_failure)
       values (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
       on conflict (endpoint_id, hour) do update set
         succeeded = succeeded + excluded.succeeded,
         retried = retried + excluded.retried,
         failed = failed + excluded.failed,
         latency = case when ?10 is null then latency
           else json_set(latency, ?10, coalesce(json_extract(latency, ?10), 0) + 1) end,
         last_failure_at = coalesce(excluded.last_failure_at, last_failure_at),
         last_failure = case when excluded.last_failure_at is null then last_failure else excluded.last_failure end`,
    )
    .bind(
      record.endpointId,
      Math.floor(record.at / HOUR_MS),
      record.projectId,
      count("succeeded"),
      count("retried"),
      count("failed"),
      JSON.stringify(histogram),
      failedAt,
      record.failure,
      path,
    );
}

export type RefusalBucket = "project" | "caller";

/** Adds `n` refused requests to the project's hour. */
export function refusalStatement(db: Db, projectId: string, hour: number, bucket: RefusalBucket, n: number) {
  return db.$client
    .prepare(
      `insert into refusal_hours (project_id, hour, bucket, count) values (?, ?, ?, ?)
       on conflict (project_id, hour, bucket) do update set count = count + excluded.count`,
    )
    .bind(projectId, hour, bucket, n);
}

export interface ActivityRows {
  registrations: { hour: number; kind: string; count: number }[];
  refusals: { hour: number; bucket: string; count: number }[];
  logSize: number;
}

/** A project's roll-ups in [fromHour, toHour) and its log's integrated size: one batch of three range reads. */
export async function readActivity(db: Db, projectId: string, fromHour: number, toHour: number) {
  const d1 = db.$client;
  const [registrations, refusals, state] = await d1.batch<Record<string, unknown>>([
    d1
      .prepare("select hour, kind, count from activity_hours where project_id = ? and hour >= ? and hour < ?")
      .bind(projectId, fromHour, toHour),
    d1
      .prepare("select hour, bucket, count from refusal_hours where project_id = ? and hour >= ? and hour < ?")
      .bind(projectId, fromHour, toHour),
    d1.prepare("select size from log_state where project_id = ?").bind(projectId),
  ]);
  return {
    registrations: (registrations?.results ?? []) as ActivityRows["registrations"],
    refusals: (refusals?.results ?? []) as ActivityRows["refusals"],
    logSize: Number((state?.results?.[0] as { size?: number } | undefined)?.size ?? 0),
  } satisfies ActivityRows;
}

export interface DeliveryHourRow extends HourOutcomes {
  endpointId: string;
  histogram: string;
}

/** The delivery roll-ups of the given endpoints in [fromHour, toHour): one primary-key range per endpoint. */
export async function readDeliveryHours(
  db: Db,
  endpointIds: readonly string[],
  fromHour: number,
  toHour: number,
): Promise<DeliveryHourRow[]> {
  if (endpointIds.length === 0) return [];
  const { results } = await db.$client
    .prepare(
      `select endpoint_id as endpointId, hour, succeeded, retried, failed, latency as histogram,
         last_failure_at as lastFailureAt, last_failure as lastFailure
       from delivery_hours where endpoint_id in (select value from json_each(?)) and hour >= ? and hour < ?`,
    )
    .bind(JSON.stringify(endpointIds), fromHour, toHour)
    .all<DeliveryHourRow>();
  return results;
}
