// What an isolate's garbage collector does while an open-loop round runs, through workerd's inspector: its heap
// polled every few milliseconds (a fall is a collection, and the poll that waited across it says how long the
// thread was held), and V8's sampling heap profiler keeping only what outlived a scavenge (what the next full
// collection must find and free). The tail's stalls are set against both: was a slow request in flight across a
// collection of this isolate, across another long hold of workerd's one thread, or neither.
import { connect, pollHeap } from "./profile.mjs";
import { num } from "./report.mjs";

const POLL_MS = 3;
/** A fall of the used heap between two polls at least this large is a collection. */
const FALL_BYTES = 1024 * 1024;
/** A poll that waited this long was held by something on workerd's thread (this isolate's collection or other). */
const LONG_HOLD_MS = 20;
/** A request this slow is in the tail (the bare insert's p99 at 400/s is 4-20 ms here). */
const SLOW_MS = 30;
const SAMPLING_BYTES = 4096;

/** The allocation sites with the most bytes that outlived a scavenge, from a sampling heap profile. */
function topSites(profile, top) {
  const bySite = new Map();
  const walk = (node) => {
    const f = node.callFrame;
    // V8 names what the embedder allocates (the request, its headers, a binding's answer) "(V8 API)".
    const key = f.functionName || "(anonymous)";
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const total = [...bySite.values()].reduce((a, b) => a + b, 0);
  const sites = [...bySite.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([site, bytes]) => ({ site, share: total ? bytes / total : 0 }));
  return { total, sites };
}

/**
 * Runs `work` (an open-loop round with `timeline: true`) while watching `worker`'s isolate. Returns the round's
 * result, the collections seen, the bytes per request that outlived a scavenge and their top sites, and the slow
 * requests split by what they were in flight across.
 */
export async function collectionsWhile(worker, work, { requests, top = 6 }) {
  const session = await connect(worker);
  await session.send("HeapProfiler.enable");
  await session.send("HeapProfiler.startSampling", {
    samplingInterval: SAMPLING_BYTES,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: false,
  });
  const poller = pollHeap(session, POLL_MS);
  let result;
  try {
    result = await work();
  } finally {
    await poller.stop();
  }
  const { polls } = poller;
  const { result: sampled } = await session.send("HeapProfiler.getSamplingProfile");
  await session.send("HeapProfiler.stopSampling");
  session.close();
  const collections = [];
  const holds = [];
  for (let i = 1; i < polls.length; i++) {
    // Whatever held the thread did so between the last answer and this one.
    const span = { from: polls[i - 1].at, to: polls[i].at, ms: polls[i].at - polls[i - 1].at };
    if (polls[i - 1].used - polls[i].used >= FALL_BYTES)
      collections.push({ ...span, freed: polls[i - 1].used - polls[i].used });
    else if (span.ms >= LONG_HOLD_MS) holds.push(span);
  }
  const across = (r, spans) => spans.some((s) => s.from < r.sent + r.ms && s.to > r.sent);
  const slow = result.timeline.filter((r) => r.ms >= SLOW_MS);
  const inCollection = slow.filter((r) => across(r, collections));
  const inHold = slow.filter((r) => !across(r, collections) && across(r, holds));
  const { total, sites } = topSites(sampled.profile, top);
  return {
    result,
    collections: collections.length,
    longCollections: collections.filter((c) => c.ms >= LONG_HOLD_MS).length,
    longestMs: Math.round(Math.max(0, ...collections.map((c) => c.ms))),
    otherHolds: holds.length,
    slow: slow.length,
    slowInCollection: inCollection.length,
    slowInOtherHold: inHold.length,
    survivedPerRequest: total / requests,
    sites,
  };
}

/** The RESULTS.md section for the registration's collections round (registration.mjs, `collections`). */
export function collectionsSection(gc, tail) {
  const row = (name, side) => {
    const r = side.result;
    const sites = side.sites.map((s) => `${s.site} ${num(s.share * 100)} %`).join(", ");
    return `| ${name} | ${r.p50}/${r.p99} ms (${r.ok}×201 of ${r.sent}) | ${side.slow} | ${side.slowInCollection} | ${side.slowInOtherHold} | ${side.collections} (${side.longCollections}; ${side.longestMs} ms) | ${num(side.survivedPerRequest / 1024, 1)} KiB | ${sites} |`;
  };
  return [
    `### Registration: the tail's stalls and the isolates' garbage collection (one more round per side at ${tail.rate}/s, ${num(gc.size)} rows, in the profile's workerd with the inspector on)`,
    "",
    `Each side's isolate is watched while ${num(tail.count)} registrations (after ${num(tail.warmUp)}) arrive at ${tail.rate}/s: its used heap polled every ${POLL_MS} ms (a fall of at least ${FALL_BYTES / 2 ** 20} MiB between two polls is a collection; the time between those two answers, how long workerd's one thread was held), and V8's sampling heap profiler keeping only the objects that outlived a scavenge (promoted to the old generation, so only a full collection frees them, and the more there are, the sooner and the longer it runs). A request of at least ${SLOW_MS} ms is counted against what it was in flight across: a collection of the side's own isolate, or else another hold of the thread of at least ${LONG_HOLD_MS} ms (another isolate's work or collection, the local D1, a Durable Object). The inspector costs time of its own and keeps what \`console.log\` is given for its console (the product's request lines), so this round's p99 is not the row's (bench/README.md, "The collections"; docs/scale.md, "The latency tail").`,
    "",
    `| Side | p50/p99 (this round) | Requests ≥ ${SLOW_MS} ms | … across a collection of its isolate | … across another hold ≥ ${LONG_HOLD_MS} ms | Collections (≥ ${LONG_HOLD_MS} ms; longest) | Outlived a scavenge, per request | Allocated in (share of those bytes) |`,
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    row("product (fleet isolate)", gc.product),
    row("bare insert (bare isolate)", gc.bare),
  ].join("\n");
}
