#!/usr/bin/env node
// `npm run soak`: the load and fault suite (issue 9 part 3), bounded in time and count, loopback only.
//   1. load: N concurrent clients mix BIP-322 sign-ins, envelope registrations and /api/check for --duration s;
//   2. limiter: --limiter-workers concurrent requests from one IP at one fleet route for --limiter-seconds s;
//   3. restart: the load again for --restart-duration s, with the whole stack stopped and started on the same
//      state in the middle; then the cron sweep until every event is delivered.
// Then: zero 5xx, every confirmed envelope in D1 exactly once with one event, every event delivered (verified
// signatures, one idempotency key each), limiter within 5 %. Prints a summary; exits 1 on any violation.
//
//   npm run soak -- [--duration 60] [--clients 200] [--restart-duration 40] [--limiter-seconds 20] [--max-retried 0]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { prepareCheck } from "./attestation.mjs";
import { checkDeliveries, checkLimiter, checkRows } from "./checks.mjs";
import { Client, Tally } from "./clients.mjs";
import { AUTH, FLEET, STATE_DIR, Stack, startUpstreams } from "./stack.mjs";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "60" },
    clients: { type: "string", default: "200" },
    "restart-duration": { type: "string", default: "40" },
    "limiter-seconds": { type: "string", default: "20" },
    "limiter-workers": { type: "string", default: "50" },
    "delivery-timeout": { type: "string", default: "180" },
    "max-retried": { type: "string", default: "0" },
  },
});
const DURATION_S = Number(values.duration);
const CLIENTS = Number(values.clients);
const RESTART_S = Number(values["restart-duration"]);
const LIMITER_TOLERANCE = 0.05;
const STACK_LOG = ".build/soak-stack.log";
/**
 * Deliveries re-sent under their idempotency key. Stopping the stack between an attempt reaching the receiver and
 * the fleet recording it makes the next attempt re-send it (at-least-once; a receiver deduplicates by the key):
 * those are counted apart. Any other re-send fails the run above this many (--max-retried, default 0).
 */
const MAX_RETRIED = Number(values["max-retried"]);

const t0 = Date.now();
const log = (line) => console.log(`[soak +${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}`);
const violations = [];
const summary = [];

const fiveHundreds = [];
let stopAt = 0;
let upAt = 0;
const upstreams = await startUpstreams();
const stack = new Stack(upstreams, log);
const stopAll = async () => {
  await stack.stop();
  await upstreams.close();
};
process.on("SIGINT", () => stopAll().then(() => process.exit(130)));
process.on("SIGTERM", () => stopAll().then(() => process.exit(143)));

try {
  Stack.reset();
  log(`starting the stack (auth ${AUTH}, fleet ${FLEET}, state ${STATE_DIR})`);
  await stack.start();
  const checkAddress = await prepareCheck(upstreams, log);

  const accepted = new Map();
  const setupTally = new Tally();
  const clients = Array.from(
    { length: CLIENTS },
    (_, i) => new Client(i, { receiver: upstreams.receiver, tally: setupTally, accepted, fiveHundreds, checkAddress }),
  );
  log(`setting up ${CLIENTS} clients (sign-in, project, token, webhook endpoint, delegation)`);
  const ready = await Promise.all(clients.map((c) => c.setup()));
  const failedSetup = ready.filter((ok) => !ok).length;
  if (failedSetup) violations.push(`${failedSetup} clients failed their setup`);
  const live = clients.filter((_, i) => ready[i]);

  // Phase 1: the mixed load.
  const load = new Tally();
  for (const c of live) c.tally = load;
  log(`phase 1: ${live.length} clients, mixed load for ${DURATION_S} s`);
  const loadStart = Date.now();
  await Promise.all(live.map((c) => c.loop(loadStart + DURATION_S * 1000)));
  const loadSeconds = (Date.now() - loadStart) / 1000;
  const phase1FiveHundreds = fiveHundreds.length;
  summary.push([
    "phase 1 load",
    `${load.count(() => true)} requests in ${loadSeconds.toFixed(1)} s (${(load.count(() => true) / loadSeconds).toFixed(0)}/s)`,
  ]);
  summary.push(["phase 1 statuses", JSON.stringify(load.byOp)]);
  summary.push(["setup statuses", JSON.stringify(setupTally.byOp)]);
  if (phase1FiveHundreds > 0) violations.push(`${phase1FiveHundreds} 5xx answers in setup and phase 1`);
  const phase1Rows = await checkRows(stack, accepted);
  summary.push([
    "phase 1 rows",
    `${accepted.size} confirmed, ${phase1Rows.stored} stored, lost ${phase1Rows.lost.length}, duplicated ${phase1Rows.duplicated.length}, events ≠ 1: ${phase1Rows.eventsWrong.length}`,
  ]);

  // Phase 2: the rate limiter from one IP.
  log(
    `phase 2: rate limiter, ${values["limiter-workers"]} concurrent requests from one IP for ${values["limiter-seconds"]} s`,
  );
  const limiter = await checkLimiter({
    url: `${FLEET}/api/webhook-events`,
    workers: Number(values["limiter-workers"]),
    seconds: Number(values["limiter-seconds"]),
  });
  summary.push([
    "phase 2 limiter",
    `GET /api/webhook-events, rule ${limiter.rule.capacity}/${limiter.rule.windowMs / 1000} s: accepted ${limiter.accepted}, expected ${limiter.expected} (capacity + refill over ${(limiter.elapsedMs / 1000).toFixed(1)} s), error ${(limiter.error * 100).toFixed(2)} %; 429 ${limiter.limited}; other ${limiter.other}`,
  ]);
  if (limiter.error > LIMITER_TOLERANCE)
    violations.push(`limiter admitted ${limiter.accepted}, expected ${limiter.expected} ± 5 %`);
  if (limiter.other > 0) violations.push(`limiter phase: ${limiter.other} answers neither accepted nor 429`);

  // Phase 3: restart the stack in the middle of a load.
  const restartTally = new Tally();
  for (const c of live) c.tally = restartTally;
  const before = fiveHundreds.length;
  log(`phase 3: load for ${RESTART_S} s with a stack restart at ${Math.round(RESTART_S / 3)} s`);
  const restartStart = Date.now();
  const loads = Promise.all(live.map((c) => c.loop(restartStart + RESTART_S * 1000)));
  await new Promise((r) => setTimeout(r, (RESTART_S / 3) * 1000));
  stopAt = Date.now();
  log("  stopping the stack (SIGTERM to dev.mjs's process group)");
  await stack.stop();
  log(`  stopped in ${((Date.now() - stopAt) / 1000).toFixed(1)} s; starting it again on the same state`);
  await stack.start();
  upAt = Date.now();
  await loads;
  const restartFiveHundreds = fiveHundreds.slice(before);
  summary.push([
    "phase 3 restart",
    `down ${((upAt - stopAt) / 1000).toFixed(1)} s; statuses ${JSON.stringify(restartTally.byOp)}`,
  ]);
  if (restartFiveHundreds.length > 0) violations.push(`${restartFiveHundreds.length} 5xx answers in phase 3`);

  // After everything: rows and deliveries.
  const rows = await checkRows(stack, accepted);
  summary.push([
    "rows (all phases)",
    `${accepted.size} envelopes confirmed (${[...accepted.values()].filter((a) => a.resent).length} by a re-send after a lost answer), ${rows.stored} stored; lost ${rows.lost.length}, duplicated ${rows.duplicated.length}, events ≠ 1: ${rows.eventsWrong.length}, stored without a confirmation ${rows.unconfirmed.length}`,
  ]);
  if (rows.lost.length)
    violations.push(`${rows.lost.length} confirmed envelopes missing from D1, e.g. ${rows.lost[0]}`);
  if (rows.duplicated.length) violations.push(`${rows.duplicated.length} envelopes stored twice`);
  if (rows.eventsWrong.length) violations.push(`${rows.eventsWrong.length} envelopes without exactly one outbox event`);
  if (rows.unconfirmed.length) violations.push(`${rows.unconfirmed.length} stored envelopes no client saw confirmed`);
  log("waiting for every event to reach the receiver (cron sweep every 3 s)");
  const deliveries = await checkDeliveries(upstreams.receiver, accepted, {
    timeoutMs: Number(values["delivery-timeout"]) * 1000,
    log,
    stopAt,
    upAt,
  });
  summary.push([
    "webhooks",
    `${deliveries.requests} deliveries received for ${accepted.size} events after ${deliveries.sweeps} sweeps; missing ${deliveries.missing.length}; events under two idempotency keys ${deliveries.twoKeys.length}; one key sent again (a later attempt) ${deliveries.retried}, of which not explained by the restart ${deliveries.unexplained}; one attempt sent twice ${deliveries.repeatedAttempts}; signature checks failed ${deliveries.unverified}`,
  ]);
  if (deliveries.missing.length)
    violations.push(`${deliveries.missing.length} events never delivered, e.g. ${deliveries.missing[0]}`);
  if (deliveries.twoKeys.length)
    violations.push(`${deliveries.twoKeys.length} events delivered under two idempotency keys`);
  if (deliveries.repeatedAttempts) violations.push(`${deliveries.repeatedAttempts} delivery attempts sent twice`);
  if (deliveries.unexplained > MAX_RETRIED) {
    violations.push(
      `${deliveries.unexplained} deliveries sent again under their key outside the restart (allowed: ${MAX_RETRIED})`,
    );
  }
  if (deliveries.unverified) violations.push(`${deliveries.unverified} deliveries failed a stock signature check`);
  for (const seen of deliveries.samples) summary.push(["redelivery sample", JSON.stringify(seen)]);
  summary.push(["restart window", `stop ${new Date(stopAt).toISOString()}, up ${new Date(upAt).toISOString()}`]);
} catch (err) {
  violations.push(`soak aborted: ${err?.stack ?? err}`);
} finally {
  await stopAll();
  if (violations.length) writeFileSync(STACK_LOG, stack.output.join(""));
}
// One sample answer per operation and 5xx status.
const sampled = new Set();
for (const f of fiveHundreds) {
  if (sampled.has(`${f.op} ${f.status}`)) continue;
  sampled.add(`${f.op} ${f.status}`);
  summary.push(["5xx sample", JSON.stringify(f)]);
}

console.log("\n=== soak summary ===");
console.log(
  `clients ${CLIENTS}, load ${DURATION_S} s, restart phase ${RESTART_S} s, total ${((Date.now() - t0) / 1000).toFixed(0)} s`,
);
for (const [name, text] of summary) console.log(`${name}: ${text}`);
if (violations.length) console.log(`stack log: ${STACK_LOG}`);
console.log(violations.length ? `VIOLATIONS (${violations.length}):\n- ${violations.join("\n- ")}` : "no violations");
process.exit(violations.length ? 1 : 0);
