// Recovering the events an endpoint missed (issue 26): while an endpoint is paused, registrations are not fanned out
// to it (and a project with no active endpoint keeps no event at all, d1-migrations/0009), so resuming alone would
// lose them. Recovery walks the project's registrations from the newest back to `since`, a page at a time, and
// gives the endpoint one delivery per event it subscribes to: the registration's own event (its id is on the
// envelope row; the outbox row is written when missing), with the idempotency key any delivery of that event to
// this endpoint has, so a receiver that did get one already recognises it, and an event already delivered or
// queued to this endpoint is never queued twice (the unique (event, endpoint) pair). Like Svix's and Stripe's
// recovery, it is the operator's choice: nothing is replayed unless asked.
import { randomHex } from "../../../../shared/crypto/digest";
import type { Db } from "../../../../shared/db/client";
import { REGISTERED_EVENT, type RegisteredKind } from "../registry/events";
import { idempotencyKey, subscribed } from "./fanout";
import type { EndpointRow } from "./views";

/** Registrations looked at per call; the answer's cursor continues from there. */
export const RECOVER_PAGE = 500;
/** Registration times come from the registering isolate's clock: rows this much older than `since` end the walk. */
export const CLOCK_SKEW_MS = 60_000;

export interface RecoverPage {
  /** Deliveries queued by this call (events already delivered or queued to the endpoint are not counted). */
  queued: number;
  /** Registrations looked at. */
  scanned: number;
  /** Where the next call continues (older registrations), or null: the walk reached `since`. */
  nextCursor: number | null;
}

// The project's registrations below `cursor`, newest first, through the log's order (envelopes_leaf).
const PAGE = `select leaf_idx, id, kind, event_id, created_at from envelopes
  where project_id = ? and leaf_idx < ? order by leaf_idx desc limit ?`;
// Each chosen event's outbox row, when the registration kept none (no active endpoint then): marked fanned out, so
// the fan-out sweep does not also send it to the project's other endpoints.
const OUTBOX = `insert or ignore into outbox (id, project_id, event_type, envelope_id, payload, endpoint_id, created_at,
  fanned_out_at) select value ->> 'event', ?, value ->> 'type', value ->> 'envelope', '', null, value ->> 'at', ?
  from json_each(?)`;
const DELIVERIES = `insert or ignore into webhook_deliveries (id, project_id, endpoint_id, event_id, event_type,
  idempotency_key, state, attempt_count, next_retry_at, created_at, updated_at)
  select value ->> 'id', ?1, ?2, value ->> 'event', value ->> 'type', value ->> 'key', 'pending', 0, ?3, ?3, ?3
  from json_each(?4)`;

type Row = [idx: number, id: string, kind: string, eventId: string | null, createdAt: number];

/** One page of recovery for `endpoint`, from `cursor` (exclusive; none: the newest registration) back to `since`. */
export async function recoverPage(
  db: Db,
  endpoint: EndpointRow,
  since: number,
  cursor: number | null,
  now: number,
  pageSize = RECOVER_PAGE,
): Promise<RecoverPage> {
  const d1 = db.$client;
  const rows = await d1
    .prepare(PAGE)
    .bind(endpoint.projectId, cursor ?? Number.MAX_SAFE_INTEGER, pageSize)
    .raw<Row>();
  const reachedSince = rows.some(([, , , , at]) => at < since - CLOCK_SKEW_MS);
  const events = [];
  for (const [, id, kind, eventId, at] of rows) {
    const type = REGISTERED_EVENT[kind as RegisteredKind];
    // Rows from before registrations carried an event id were fanned out from their own outbox rows at the time.
    if (at < since || eventId === null || !type || !subscribed(endpoint.eventTypes, type)) continue;
    events.push({ event: eventId, type, envelope: id, at, key: await idempotencyKey(eventId, endpoint.id) });
  }
  let queued = 0;
  if (events.length > 0) {
    const deliveries = events.map((e) => ({ ...e, id: `whd_${randomHex(12)}` }));
    const [, inserted] = await d1.batch([
      d1.prepare(OUTBOX).bind(endpoint.projectId, now, JSON.stringify(events)),
      d1.prepare(DELIVERIES).bind(endpoint.projectId, endpoint.id, now, JSON.stringify(deliveries)),
    ]);
    queued = inserted?.meta.changes ?? 0;
  }
  const last = rows.at(-1);
  const done = reachedSince || rows.length < pageSize || last === undefined;
  return { queued, scanned: rows.length, nextCursor: done ? null : last[0] };
}
