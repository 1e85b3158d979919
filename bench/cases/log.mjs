// A project's transparency log served from its tiles (issue 29; docs/log.md): how fast the integrator turns seeded
// leaves into tiles and checkpoints, and whether the checkpoint, inclusion-proof and consistency-proof routes stay
// flat from 1,000 leaves to a million (each size against the same route at 1,000 leaves).
// Each size is a project of its own whose leaves (envelope rows, each its leaf) are seeded in D1 directly (a recursive
// CTE: envelope id and leaf hash `printf('%064x', i)`, an empty body; proofs do not care what the hashes are). The cron route pokes its integrator;
// the size is then read from D1 every POLL_MS (no bucket spent), and the signed checkpoint the route serves is
// checked once at the end. Sizes are integrated one after another, then every route is measured at every size in
// rounds that go over the sizes in turn, so the machine's noise falls on all sizes alike; each figure is its best
// round. Rate limits are respected, with fresh buckets each round: a round starts a fresh workerd on the same
// storage (`stack.restart()`: the log routes' buckets fail open, so they live in the limiter objects' memory and
// start full, as they would a minute later), warmed on a project of its own. In a round a project takes
// 3 routes × `requests`, under 0.8 of its 600/min, over TOKENS tokens (each under 0.8 of its 150/min share), and a
// client address sends at most PER_IP to a route's bucket (120/min).
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../lib/build.mjs";
import { seedProject } from "../lib/fleet-seed.mjs";
import { interleavedIp, load } from "../lib/load.mjs";
import { startFleetAndBare } from "../lib/stack.mjs";

/** Tokens of each measured project: its requests go round them. */
const TOKENS = 6;
const PER_IP = 25;
const CONNECTIONS = 10;
/** Leaves per seeding statement. */
const SEED_CHUNK = 100_000;
/** How often the harness reads the integrated size from D1 while the integrator works (its timing's resolution). */
const POLL_MS = 25;
/** The fleet's limits (workers/fleet/src/limits.ts) the measurement stays under, with a fifth kept spare. */
const PROJECT_BUDGET = 0.8 * 600;
const CALLER_BUDGET = 0.8 * 150;
/** The integrator's interval (CHECKPOINT_INTERVAL_MS) and batch (INTEGRATION_BATCH), as the fleet sets them. */
export const CHECKPOINT_INTERVAL_MS = 1_000;
/** A poke waits 0.75–1 interval, at random (log-integrator.ts INTERVAL_SPREAD): the least it waits. */
export const LEAST_WAIT_MS = 0.75 * CHECKPOINT_INTERVAL_MS;
export const INTEGRATION_BATCH = 4_096;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const hex64 = (i) => i.toString(16).padStart(64, "0");
const randomInt = (n) => Math.floor(Math.random() * n);

export const ROUTES = {
  checkpoint: { name: "checkpoint", path: (p) => `/api/log/checkpoint?project_id=${p.projectId}` },
  inclusion: {
    name: "inclusion proof",
    path: (p, n) => `/api/log/inclusion?project_id=${p.projectId}&id=${hex64(randomInt(n))}`,
  },
  consistency: {
    name: "consistency proof",
    path: (p, n) => `/api/log/consistency?project_id=${p.projectId}&first=${1 + randomInt(n)}`,
  },
};

/** `count` leaves in `projectId`'s log, indexes 0… in order, hashed already (as registrations write them). */
async function seedLeaves(db, projectId, count) {
  for (let done = 0; done < count; done += SEED_CHUNK) {
    const last = Math.min(done + SEED_CHUNK, count) - 1;
    await db
      .prepare(
        `INSERT INTO envelopes (project_id, id, kind, body, created_at, leaf_idx, leaf_hash)
         WITH RECURSIVE c(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM c WHERE i < ?2)
         SELECT ?3, printf('%064x', i), 'action', '', 0, i, printf('%064x', i) FROM c`,
      )
      .bind(done, last, projectId)
      .run();
  }
}

/**
 * The integrated size, read through miniflare's proxy. A read may wait seconds (locally one thread runs the
 * integrator, D1 and the proxy) and a kept-alive proxy connection can close under it: such a read is made again.
 */
async function integratedSize(db, projectId, again = 2) {
  try {
    return (await db.prepare("SELECT size FROM log_state WHERE project_id = ?").bind(projectId).first())?.size ?? 0;
  } catch (err) {
    if (again === 0) throw err;
    return integratedSize(db, projectId, again - 1);
  }
}

/** Pokes every log behind its leaves (the cron route), then reads the integrated size until it is `n`: the ms between. */
async function integrate({ db, fleet, cronSecret, projectId, n, timeoutMs }) {
  // From the cron request's start: the poke is inside it, so the time after the interval is never undercounted.
  const poked = performance.now();
  const res = await fetch(`${fleet}/api/cron/reconcile`, {
    method: "POST",
    headers: { authorization: `Bearer ${cronSecret}`, "cf-connecting-ip": "10.250.0.1" },
  });
  if (res.status !== 200) throw new Error(`cron: ${res.status} ${await res.text()}`);
  for (;;) {
    const size = await integratedSize(db, projectId);
    const at = performance.now() - poked;
    if (size >= n) return at;
    if (at > timeoutMs) throw new Error(`log integration: ${size} of ${n} leaves after ${Math.round(at)} ms`);
    await sleep(POLL_MS);
  }
}

/** The size line of the checkpoint the route serves (C2SP tlog-checkpoint: origin, size, root). */
async function servedSize(fleet, p) {
  const res = await fetch(`${fleet}${ROUTES.checkpoint.path(p)}`, {
    headers: { authorization: `Bearer ${p.secrets[0]}`, "cf-connecting-ip": "10.250.0.2" },
  });
  if (res.status !== 200) throw new Error(`checkpoint: ${res.status} ${await res.text()}`);
  return Number((await res.text()).split("\n")[1]);
}

/** `count` distinct requests of `route` on project `p` of `n` leaves, round its tokens, from fresh addresses. */
function requestsFor(route, p, n, count, ipBase) {
  return Array.from({ length: count }, (_, i) => ({
    method: "GET",
    path: route.path(p, n),
    headers: {
      authorization: `Bearer ${p.secrets[p.sent++ % p.secrets.length]}`,
      "cf-connecting-ip": interleavedIp(ipBase, i, count, PER_IP),
    },
  }));
}

/** The registration rates in the committed bench/RESULTS.md (when this run did not measure them). */
export function committedRegistration() {
  const text = readFileSync(path.join(ROOT, "bench", "RESULTS.md"), "utf8");
  const date = /on (\d{4}-\d{2}-\d{2})/.exec(text)?.[1];
  // A row's cells: benchmark, size, project, baseline, ratio, target, met; the rate is the cell's first "N/s".
  const rate = (line, cell) => Number(/([\d,]+)\/s/.exec(line.split("|")[cell + 1] ?? "")?.[1].replace(/,/g, ""));
  const lines = text.split("\n");
  const routes = lines.filter((l) => l.startsWith("| Envelope registration")).map((l) => rate(l, 2));
  const held = lines.filter((l) => l.startsWith("| Sustained registration")).map((l) => rate(l, 4))[0];
  return { date, route: Math.max(...routes), held };
}

export async function logBench({ fx, bundles, sizes, requests, rounds, log }) {
  const perRound = Object.keys(ROUTES).length * requests;
  if (perRound > PROJECT_BUDGET || perRound / TOKENS > CALLER_BUDGET) {
    throw new Error(`log: ${perRound} requests per project and round would pass its rate limits`);
  }
  const { stack, db, secrets } = await startFleetAndBare(bundles, (s) => ({ CRON_SECRET: s.CRON_SECRET }));
  const fleet = stack.urls.fleet;
  const cronSecret = secrets.CRON_SECRET;
  const project = async () => ({ ...(await seedProject(db, fx.newWallet("p2wpkh"), TOKENS)), sent: 0 });
  let ipBase = 0;
  try {
    // A project of 1,000 leaves, integrated first (the integrator's first run) and read before each round.
    const warm = await project();
    await seedLeaves(db, warm.projectId, 1_000);
    await integrate({ db, fleet, cronSecret, projectId: warm.projectId, n: 1_000, timeoutMs: 60_000 });
    const warmUp = async () => {
      for (const route of Object.values(ROUTES)) {
        await load(fleet, requestsFor(route, warm, 1_000, 50, ipBase), { connections: CONNECTIONS });
        ipBase += 50;
      }
    };
    const measured = [];
    for (const n of sizes) {
      const p = await project();
      const seedStart = performance.now();
      await seedLeaves(db, p.projectId, n);
      const seedMs = performance.now() - seedStart;
      log(`log: ${n} leaves seeded in ${(seedMs / 1000).toFixed(1)} s; integrating`);
      const timeoutMs = 60_000 + n; // a millisecond a leaf: far beyond any rate this measures
      const ms = await integrate({ db, fleet, cronSecret, projectId: p.projectId, n, timeoutMs });
      const served = await servedSize(fleet, p);
      if (served !== n) throw new Error(`log: the served checkpoint has ${served} leaves, not ${n}`);
      // Its own pace, at least: the time after the least wait of a poke (the wait is 0.75–1 interval at random, so
      // this counts up to a quarter interval of waiting as integrating; an alarm firing late counts so too).
      const working = ms - LEAST_WAIT_MS;
      const integration = { ms, perSecond: n / (ms / 1000), working, steady: n / (working / 1000) };
      log(`log ${n}: integration ${JSON.stringify(integration)}`);
      measured.push({ n, p, seedMs, integration, routes: {}, all: {} });
    }
    for (let round = 0; round < rounds; round++) {
      await stack.restart();
      await warmUp();
      for (const m of measured) {
        for (const [key, route] of Object.entries(ROUTES)) {
          const r = await load(fleet, requestsFor(route, m.p, m.n, requests, ipBase), {
            connections: CONNECTIONS,
            expect: 200,
          });
          ipBase += requests;
          // Every round's answers count towards the row (a 429 in any round shows), the best round's rate is its figure.
          const all = m.all[key] ?? { sent: 0, ok: 0 };
          m.all[key] = { sent: all.sent + r.sent, ok: all.ok + r.ok };
          if (!m.routes[key] || r.okPerSecond > m.routes[key].okPerSecond) m.routes[key] = r;
          log(`log ${m.n} ${key} round ${round + 1}: ${JSON.stringify(r)}`);
        }
      }
    }
    return measured.map(({ p: _p, ...m }) => m);
  } finally {
    await stack.dispose().catch(() => {});
  }
}
