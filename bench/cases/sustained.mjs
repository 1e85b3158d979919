// Sustained registration: how fast the fleet bundle registers actions for a minute with no 5xx, where it
// saturates, and how exactly the leased rate limiter holds its rule meanwhile.
// 1. Steps: the offered rate climbs, open loop (requests sent on a fixed schedule, answered or not), for a few
//    seconds per step; a step is held when every request is answered 201, none is 5xx or lost, and the answers
//    keep pace (p99 under a second). The first step not held is where it saturates.
// 2. The highest held rate is offered for the whole minute.
// 3. Meanwhile one more client, with a valid token, floods the same route from one address at FLOOD_RATE/s; every
//    answer but 429 was admitted by its per-address bucket (120/min). Admitted beyond the rule = admitted − (the
//    bucket's capacity + its refill over the flood's time); 0 is the goal.
// 4. Meanwhile too, a probe registers one action a second in a project of its own and times each until the first
//    checkpoint that covers it (bench/lib/log-probe.mjs): the log's bound, under this load. When the load ends, the
//    time until every project's log covers all its leaves is the same bound for the busy logs.
// 5. Past it (issue 47, item 4): the held rate × OVERLOAD_FACTOR for OVERLOAD_SECONDS, each request given up after
//    ANSWER_BOUND_MS: how many were answered 201, refused early (503 `overloaded`, or 429) and unanswered (no answer
//    within the bound, or the connection failed; 0 is the goal), and the accepted ones' p50/p99.
// Every request is a distinct pre-signed action; the regular load stays inside every bucket by construction
// (round robin over addresses and tokens, each under its rule over the whole run), so a 429 there is a limiter
// error too (refused wrongly).

import { load, openLoad } from "../lib/load.mjs";
import { checkpointProbe, logsCaughtUp, PROBE_TOKENS } from "../lib/log-probe.mjs";
import { startFleetAndBare } from "../lib/stack.mjs";
import { benchProjects, signActions } from "./registration.mjs";

/** A step keeps pace while 99 % of its answers come within this. */
const PACE_MS = 1_000;
/** The fleet's rules (workers/fleet/src/limits.ts): per address and route, and a token's share of its project. */
const ROUTE_RULE = { capacity: 120, windowMs: 60_000 };
const CALLER_RULE = { capacity: 150, windowMs: 60_000 };
/** What a bucket admits over `seconds`, with a fifth kept spare. */
const within = (rule, seconds) => Math.floor(0.8 * (rule.capacity + (seconds * 1000 * rule.capacity) / rule.windowMs));
const FLOOD_RATE = 10;
/** Past capacity: this times the rate held for the minute, for this long, every answer due within the bound. */
const OVERLOAD_FACTOR = 1.5;
const OVERLOAD_SECONDS = 30;
const ANSWER_BOUND_MS = 2_000;

/** Requests for `actions`, round robin over `ips` addresses and over each project's tokens. */
function spread(actions, ipBase, ips) {
  const sent = new Map();
  return actions.map(({ project, envelope }, i) => {
    const n = sent.get(project.projectId) ?? 0;
    sent.set(project.projectId, n + 1);
    const a = ipBase + (i % ips);
    return {
      method: "POST",
      path: "/api/actions",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${project.secrets[n % project.secrets.length]}`,
        "cf-connecting-ip": `10.${(a >> 16) & 255}.${(a >> 8) & 255}.${a & 255}`,
      },
      body: JSON.stringify({ project_id: project.projectId, envelope }),
    };
  });
}

/**
 * Projects and addresses enough for `count` requests over `seconds`, every bucket under its rule: three tokens per
 * project, each inside its share (a project's 600 + 10/s holds three shares).
 */
function sizing(count, seconds) {
  const tokens = Math.ceil(count / within(CALLER_RULE, seconds));
  return { projects: Math.ceil(tokens / 3), ips: Math.ceil(count / within(ROUTE_RULE, seconds)) };
}

export async function sustained({ fx, bundles, steps, stepSeconds, seconds, log }) {
  const { stack, db } = await startFleetAndBare(bundles, (s) => ({ WEBHOOK_MASTER_KEY: s.WEBHOOK_MASTER_KEY }));
  const fleet = stack.urls.fleet;
  let ipBase = 1;
  const prepared = async (count, secs) => {
    const size = sizing(count, secs);
    const projects = await benchProjects({ fx, db, fleetUrl: fleet, count: size.projects });
    const requests = spread(await signActions(fx, projects, count), ipBase, size.ips);
    ipBase += size.ips;
    return requests;
  };
  /**
   * `requests` at `rate` for the run's length, while one more client floods the route from `floodIp` and the log
   * probe registers from addresses `10.253.<probeNet>.*`.
   */
  const minute = async (requests, rate, floodIp, probeNet) => {
    const [flooder] = await benchProjects({ fx, db, fleetUrl: fleet, count: 1 });
    const [prober] = await benchProjects({ fx, db, fleetUrl: fleet, count: 1, tokens: PROBE_TOKENS });
    const probes = (await signActions(fx, [prober], seconds)).map((a) => a.envelope);
    const flood = Array.from({ length: FLOOD_RATE * seconds }, () => ({
      method: "POST",
      path: "/api/actions",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${flooder.secret}`,
        "cf-connecting-ip": floodIp,
      },
      body: JSON.stringify({ project_id: flooder.projectId, envelope: {} }),
    }));
    const floodStart = performance.now();
    const [run, flooded, bound] = await Promise.all([
      openLoad(fleet, requests, { expect: 201, rate }).then(async (r) => ({
        ...r,
        logsCaughtUpMs: await logsCaughtUp(db, performance.now()),
      })),
      openLoad(fleet, flood, { expect: 429, rate: FLOOD_RATE }).then((f) => ({
        ...f,
        elapsedMs: performance.now() - floodStart,
      })),
      checkpointProbe({ fleet, project: prober, actions: probes, net: probeNet }),
    ]);
    const serverErrors = Object.entries(run.statuses).reduce((n, [code, k]) => n + (code >= "500" ? k : 0), 0);
    // A 503 is the registration gate's refusal (overloaded), before the limiter: not admitted either.
    const admitted = Object.entries(flooded.statuses).reduce(
      (n, [code, k]) => n + (code === "429" || code === "503" ? 0 : k),
      0,
    );
    const allowed = Math.floor(ROUTE_RULE.capacity + (flooded.elapsedMs * ROUTE_RULE.capacity) / ROUTE_RULE.windowMs);
    const limiter = {
      sent: flooded.sent,
      admitted,
      allowed,
      beyondPercent: (Math.max(0, admitted - allowed) / allowed) * 100,
      wronglyRefused: run.statuses[429] ?? 0,
    };
    const held = run.ok === requests.length && serverErrors === 0 && run.errors === 0 && run.p99 < PACE_MS;
    return {
      rate,
      held,
      run: { ...run, serverErrors },
      limiter,
      bound: { ...bound, logsCaughtUpMs: run.logsCaughtUpMs },
    };
  };
  try {
    // Warm the isolate (wasm instantiation, first lease of buckets) before the first step.
    await load(fleet, await prepared(200, 10), { connections: 10, expect: 201 });
    const tried = [];
    for (const rate of steps) {
      const count = rate * stepSeconds;
      const requests = await prepared(count, stepSeconds);
      const r = await openLoad(fleet, requests, { expect: 201, rate });
      const serverErrors = Object.entries(r.statuses).reduce((n, [code, k]) => n + (code >= "500" ? k : 0), 0);
      const ok = r.ok === count && serverErrors === 0 && r.errors === 0 && r.p99 < PACE_MS;
      tried.push({ rate, ...r, serverErrors, held: ok });
      log(`sustained step ${rate}/s: ${JSON.stringify({ ...r, serverErrors, held: ok })}`);
      if (!ok) break;
    }
    // A rate held for a few seconds may not hold for a minute (a queue that grows slowly): held steps are tried for
    // the whole run, from the highest down, until one holds; at most four minutes of it, the lowest held step last
    // (so a run whose high steps all fail the minute still finds the rate that holds).
    const held = tried.filter((t) => t.held).map((t) => t.rate);
    const candidates = [...new Set([...held.slice(-3).reverse(), held[0]])].filter((rate) => rate !== undefined);
    const attempts = [];
    for (const [n, rate] of candidates.entries()) {
      log(`sustained: signing ${rate * seconds} actions for ${seconds} s at ${rate}/s`);
      const attempt = await minute(await prepared(rate * seconds, seconds), rate, `10.254.0.${n + 1}`, n);
      attempts.push(attempt);
      log(`sustained ${rate}/s for ${seconds} s: ${JSON.stringify(attempt)}`);
      if (attempt.held) break;
    }
    // Past capacity: the rate held for the minute (else the highest step held) times the factor.
    const base = attempts.find((a) => a.held)?.rate ?? held[held.length - 1] ?? steps[0];
    const overRate = Math.round(base * OVERLOAD_FACTOR);
    const overSeconds = Math.min(seconds, OVERLOAD_SECONDS);
    log(`sustained: signing ${overRate * overSeconds} actions for ${overSeconds} s at ${overRate}/s (past capacity)`);
    const over = await openLoad(fleet, await prepared(overRate * overSeconds, overSeconds), {
      expect: 201,
      rate: overRate,
      timeoutMs: ANSWER_BOUND_MS,
    });
    const overload = {
      rate: overRate,
      base,
      seconds: overSeconds,
      boundMs: ANSWER_BOUND_MS,
      sent: over.sent,
      answered: over.ok,
      refused: { 503: over.statuses[503] ?? 0, 429: over.statuses[429] ?? 0 },
      unanswered: over.errors,
      other: Object.entries(over.statuses)
        .filter(([code]) => !["201", "503", "429"].includes(code))
        .reduce((n, [, k]) => n + k, 0),
      okP50: over.okP50,
      okP99: over.okP99,
      p99: over.p99,
      ...(over.errorKinds && { errorKinds: over.errorKinds }),
    };
    log(`sustained past capacity ${overRate}/s for ${overSeconds} s: ${JSON.stringify(overload)}`);
    return { tried, attempts, overload };
  } finally {
    await stack.dispose().catch(() => {});
  }
}
