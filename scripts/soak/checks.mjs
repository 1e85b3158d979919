// What the soak asserts after its load: every confirmed envelope is in D1 exactly once with exactly one outbox event,
// every event reached the receiver (verified by both stock signature checks) under one idempotency key, and the
// rate limiter admitted what its token bucket allows.
import { importTs } from "../lib/import-ts.mjs";
import { CRON_SECRET, FLEET } from "./stack.mjs";

// The rule the fleet routes run with, read from the source (one definition of the configured rate).
const { FLEET_ROUTE_RULE } = await importTs("workers/fleet/src/limits.ts");

/** Accepted envelopes against D1: lost (confirmed, not stored), duplicated, and stored without a confirmation. */
export async function checkRows(stack, accepted) {
  const rows = await stack.query(
    "SELECT e.project_id AS p, e.id AS id, (SELECT count(*) FROM outbox o WHERE o.project_id = e.project_id AND o.envelope_id = e.id) AS events FROM envelopes e",
  );
  const stored = new Map();
  for (const row of rows) {
    const key = `${row.p} ${row.id}`;
    stored.set(key, (stored.get(key) ?? 0) + 1);
  }
  const lost = [...accepted.keys()].filter((key) => !stored.has(key));
  const duplicated = [...stored].filter(([, n]) => n > 1).map(([key]) => key);
  const eventsWrong = rows.filter((r) => accepted.has(`${r.p} ${r.id}`) && Number(r.events) !== 1);
  const unconfirmed = [...stored.keys()].filter((key) => !accepted.has(key));
  return { stored: stored.size, lost, duplicated, eventsWrong, unconfirmed };
}

/** Deliveries the receiver holds, by envelope id: the webhook-ids seen and how many requests. */
async function received(receiver) {
  const list = await (await fetch(`${receiver.url}/__admin/received`)).json();
  const byEnvelope = new Map();
  let unverified = 0;
  for (const delivery of list) {
    if (!delivery.serviceOk || !delivery.standardOk) unverified += 1;
    let body;
    try {
      body = JSON.parse(delivery.body);
    } catch {
      continue;
    }
    if (!body?.id || !body?.project_id) continue;
    const key = `${body.project_id} ${body.id}`;
    const entry = byEnvelope.get(key) ?? { keys: new Map(), requests: 0, seen: [] };
    entry.requests += 1;
    entry.seen.push({
      at: delivery.at,
      attempt: delivery.headers["x-service-attempt"] ?? "1",
      id: delivery.headers["x-service-delivery"],
    });
    const idempotencyKey = delivery.headers["webhook-id"];
    entry.keys.set(idempotencyKey, (entry.keys.get(idempotencyKey) ?? 0) + 1);
    byEnvelope.set(key, entry);
  }
  return { total: list.length, byEnvelope, unverified };
}

async function reconcile() {
  try {
    const res = await fetch(`${FLEET}/api/cron/reconcile`, {
      method: "POST",
      headers: { authorization: `Bearer ${CRON_SECRET}`, "cf-connecting-ip": "192.0.2.251" },
      signal: AbortSignal.timeout(60_000),
    });
    return res.status;
  } catch {
    return 0;
  }
}

/**
 * Waits (running the cron sweep every few seconds, as the Cron Trigger would) until every accepted envelope's event
 * has been delivered, or `timeoutMs` passes; then reports missing events, events under more than one idempotency
 * key, and redeliveries of one key.
 */
export async function checkDeliveries(receiver, accepted, { timeoutMs, log, stopAt, upAt }) {
  const deadline = Date.now() + timeoutMs;
  let state = await received(receiver);
  let sweeps = 0;
  const missing = () => [...accepted.keys()].filter((key) => !state.byEnvelope.has(key));
  while (missing().length > 0 && Date.now() < deadline) {
    const status = await reconcile();
    sweeps += 1;
    await new Promise((r) => setTimeout(r, 3000));
    state = await received(receiver);
    log(`  sweep ${sweeps} (${status}): ${missing().length} of ${accepted.size} events not delivered yet`);
  }
  const twoKeys = [...state.byEnvelope].filter(([, e]) => e.keys.size > 1).map(([key]) => key);
  // A key sent again with a higher attempt number is a retry (the attempt before it failed or timed out, as the
  // receiver may never know); the same attempt number twice would break "an attempt is sent at most once" (FLT-05).
  // A retry is explained by the restart when the attempt before it reached the receiver before the stack was up
  // again and the retry came after the stop: the stack was stopped before it could record that attempt.
  let retried = 0;
  let unexplained = 0;
  let repeatedAttempts = 0;
  const samples = [];
  for (const entry of state.byEnvelope.values()) {
    for (const n of entry.keys.values()) retried += n - 1;
    const seen = [...entry.seen].sort((a, b) => a.at - b.at);
    for (let i = 1; i < seen.length; i++) {
      const explained = (seen[i - 1]?.at ?? 0) < upAt && (seen[i]?.at ?? 0) >= stopAt;
      if (!explained) unexplained += 1;
    }
    repeatedAttempts += entry.seen.length - new Set(entry.seen.map((s) => s.id)).size;
    if (entry.requests > 1 && samples.length < 3) samples.push(entry.seen);
  }
  return {
    requests: state.total,
    missing: missing(),
    twoKeys,
    retried,
    unexplained,
    repeatedAttempts,
    samples,
    unverified: state.unverified,
    sweeps,
  };
}

/**
 * Many concurrent requests from one client IP at one route for `seconds`: the accepted count (anything but 429)
 * against the token bucket, which starts full (capacity) and refills capacity/window continuously.
 */
export async function checkLimiter({ url, workers, seconds }) {
  const ip = `192.0.2.${100 + (process.pid % 100)}`;
  let accepted = 0;
  let limited = 0;
  let other = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < end) {
        const sent = Date.now();
        first = Math.min(first, sent);
        last = Math.max(last, sent);
        try {
          const res = await fetch(url, { headers: { "cf-connecting-ip": ip }, signal: AbortSignal.timeout(30_000) });
          await res.arrayBuffer();
          if (res.status === 429) limited += 1;
          else if (res.status < 500) accepted += 1;
          else other += 1;
        } catch {
          other += 1;
        }
      }
    }),
  );
  const elapsedMs = last - first;
  const { capacity, windowMs } = FLEET_ROUTE_RULE;
  const expected = capacity + Math.floor((elapsedMs * capacity) / windowMs);
  const error = Math.abs(accepted - expected) / expected;
  return { accepted, limited, other, expected, elapsedMs, error, rule: FLEET_ROUTE_RULE };
}
