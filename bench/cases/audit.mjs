// Audit export: GET /api/audit/export (ndjson, streamed page by page, hashed, signed manifest) of a project holding
// `size` envelopes, against the bare worker's one select of the same rows. Rows per second over the whole body,
// and the workerd process's peak RSS during the request (VmHWM, reset before each request through clear_refs).
import { countRows, seedEnvelopes, seedProject } from "../lib/fleet-seed.mjs";
import { heapWhile } from "../lib/profile.mjs";
import { startFleetAndBare } from "../lib/stack.mjs";

/** Requests per side beyond the first, for the rate (bench/README.md). */
const RATE_TRIES = 2;
/** Exports of the product's side whose heap is watched, per size and measure: the spread is reported. */
export const HEAP_PASSES = 3;

/** `drain` while the isolate's heap is watched: its peak growth joins the process's. */
async function drainWatched(stack, worker, url, headers, retained = false) {
  const base = worker === "fleet" ? stack.urls.fleet : stack.urls.bare;
  const poke = () => fetch(`${base}/__heap-poke`).then((res) => res.arrayBuffer());
  const { result, beforeKiB, peakKiB } = await heapWhile(worker, () => drain(stack, url, headers), { retained, poke });
  return { ...result, heapPeakKiB: peakKiB, heapGrowthKiB: peakKiB - beforeKiB };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The product's heap over HEAP_PASSES exports for each measure: the used heap's peak (garbage included, so it moves
 * with the collector's timing) and the retained heap's (a full collection before each poll: what the export holds
 * live). Each list in pass order; the figures compared are the medians.
 */
async function heapPasses(stack, url, headers) {
  const used = [];
  const retained = [];
  for (let i = 0; i < HEAP_PASSES; i++) {
    used.push((await drainWatched(stack, "fleet", url, headers)).heapPeakKiB);
    retained.push((await drainWatched(stack, "fleet", url, headers, true)).heapPeakKiB);
  }
  return { used, retained, usedKiB: median(used), retainedKiB: median(retained) };
}

async function drain(stack, url, headers) {
  const before = stack.memory().rssKiB;
  stack.resetPeak();
  const start = performance.now();
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines += 1;
  }
  const seconds = (performance.now() - start) / 1000;
  const { peakKiB } = stack.memory();
  return { seconds, bytes, lines, rssBeforeKiB: before, peakKiB, growthKiB: peakKiB - before };
}

export async function audit({ fx, bundles, sizes, log }) {
  const { stack } = await startFleetAndBare(bundles, undefined, { inspect: true });
  const rows = [];
  try {
    const owner = fx.newWallet();
    const agent = fx.newWallet();
    const d = await fx.delegation(owner, agent);
    const body = JSON.stringify((await fx.action(d.envelope.id, agent)).envelope);
    let ip = 0;
    let first;
    for (const size of sizes) {
      const db = await stack.db("fleet");
      const p = await seedProject(db, owner);
      await seedEnvelopes(db, p.projectId, size, body);
      if ((await countRows(db, "envelopes", "project_id = ?", p.projectId)) !== size) throw new Error("seeding");
      first ??= p;
      const headers = (q) => ({ authorization: `Bearer ${q.secret}`, "cf-connecting-ip": `172.16.0.${++ip}` });
      // Every size is measured in a fresh workerd warmed by the same request (the smallest project's export), so
      // the isolate's heap before the measured export is the same at every size: what the export itself holds is
      // the difference, not the garbage of the sizes before it.
      await stack.restart();
      await drain(stack, `${stack.urls.fleet}/api/audit/export?project_id=${first.projectId}`, headers(first)); // warm
      const exportUrl = `${stack.urls.fleet}/api/audit/export?project_id=${p.projectId}`;
      const selectUrl = `${stack.urls.bare}/select?project_id=${p.projectId}`;
      // Memory from the first request of each side (heap watched); the rate from the best of that and RATE_TRIES
      // more, the sides taking turns: one export of 1,000 rows lasts ~0.1 s, which one hiccup of this shared
      // machine moved by half.
      const project = await drainWatched(stack, "fleet", exportUrl, headers(p));
      const bare = await drainWatched(stack, "bare", selectUrl, headers(p));
      project.heap = await heapPasses(stack, exportUrl, headers(p));
      for (let i = 0; i < RATE_TRIES; i++) {
        project.seconds = Math.min(project.seconds, (await drain(stack, exportUrl, headers(p))).seconds);
        bare.seconds = Math.min(bare.seconds, (await drain(stack, selectUrl, headers(p))).seconds);
      }
      // ndjson: one line per envelope plus the manifest line.
      if (project.lines !== size + 1 || bare.lines !== size)
        throw new Error(`line counts ${project.lines} ${bare.lines}`);
      project.rowsPerSecond = size / project.seconds;
      bare.rowsPerSecond = size / bare.seconds;
      log(`audit ${size}: project ${JSON.stringify(project)} bare ${JSON.stringify(bare)}`);
      rows.push({ size, project, bare });
    }
    // The smallest export again in the isolate that has just exported the largest: what its heap holds beyond a
    // fresh one's is the isolate's own warmth (code compiled, caches), not rows, and it is the same at either size.
    const smallest = `${stack.urls.fleet}/api/audit/export?project_id=${first.projectId}`;
    rows.warmSmallest = await heapPasses(stack, smallest, {
      authorization: `Bearer ${first.secret}`,
      "cf-connecting-ip": "172.16.1.1",
    });
  } finally {
    await stack.dispose().catch(() => {});
  }
  return rows;
}
