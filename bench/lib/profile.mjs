// A CPU profile of one worker while a load runs, through workerd's inspector (Chrome DevTools Protocol): the
// functions with the most self time, grouped by module, so a missed target can be explained by where time goes.
import WebSocket from "ws";

export const INSPECTOR_PORT = 8849;

export async function connect(worker) {
  const targets = await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json`)).json();
  const target = targets.find((t) => t.id === `core:user:${worker}` || t.title?.includes(worker));
  if (!target) throw new Error(`no inspector target for ${worker}: ${targets.map((t) => t.id).join(", ")}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl ?? `ws://127.0.0.1:${INSPECTOR_PORT}/${target.id}`);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let id = 0;
  const pending = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      id += 1;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

/** The profiler's sampling interval (µs). */
const SAMPLING_US = 200;
/** A gap between two samples longer than this was not this isolate's time. */
const LONGEST_OWN_GAP_US = 5 * SAMPLING_US;

/**
 * A sample's time delta as [this isolate's, away]. V8 samples an isolate only while it runs; workerd runs every
 * worker, Durable Object and the local D1 on the same thread, so while another isolate runs this one gets no sample,
 * and the next sample's delta holds that whole time. Counted as the self time of whatever ran first on its return
 * (in one run 52 % of the fleet's samples went to a function that runs once per request as it starts), it hid the
 * profile: a long delta counts one interval here, and the rest is reported apart.
 */
function splitDelta(delta) {
  return delta > LONGEST_OWN_GAP_US ? [SAMPLING_US, delta - SAMPLING_US] : [delta, 0];
}

/**
 * Runs `work` while profiling `worker`; returns the top `top` functions by self time (ms and share of the time
 * sampled in this isolate) and `awayMs`, the time between samples spent outside it (splitDelta).
 */
export async function profileWhile(worker, work, top = 12) {
  const session = await connect(worker);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: SAMPLING_US });
  await session.send("Profiler.start");
  const result = await work();
  const { result: stopped } = await session.send("Profiler.stop");
  session.close();
  const profile = stopped.profile;
  const dt = new Map();
  const { samples, timeDeltas } = profile;
  let away = 0;
  for (let i = 0; i < samples.length; i++) {
    const [own, gap] = splitDelta(timeDeltas[i] ?? 0);
    dt.set(samples[i], (dt.get(samples[i]) ?? 0) + own);
    away += gap;
  }
  const total = [...dt.values()].reduce((a, b) => a + b, 0);
  const byFn = new Map();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const file = f.url ? f.url.split("/").pop() : "";
    const key = `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) ?? 0) + (dt.get(node.id) ?? 0));
  }
  const rows = [...byFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => ({ fn, ms: Math.round(us / 1000), share: total ? us / total : 0 }));
  return { result, totalMs: Math.round(total / 1000), awayMs: Math.round(away / 1000), rows };
}

/**
 * How long a poll waits for a full collection it asked for. workerd runs the collection (and answers) only when the
 * isolate next runs; while the work runs that is within milliseconds, and once it has ended the poll must not wait.
 */
const COLLECT_WAIT_MS = 250;

const within = (promise, ms) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms))]);

/**
 * The isolate's used heap (bytes), asked through `session` every `everyMs` until `stop()`: each answer with the time
 * it came (performance.now()), so a long wait between two answers shows the thread was held. With `collectFirst`,
 * each poll follows a full collection: the heap then holds only what is live.
 */
export function pollHeap(session, everyMs, collectFirst = false) {
  const polls = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      if (collectFirst) await within(session.send("HeapProfiler.collectGarbage"), COLLECT_WAIT_MS);
      const { result } = await session.send("Runtime.getHeapUsage");
      polls.push({ at: performance.now(), used: result.usedSize });
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    polls,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/**
 * The isolate's JavaScript heap while `work` runs, in KiB: V8's used heap before it (after a full collection, so what
 * an earlier request left as garbage is not counted against this one, once `poke` has made the isolate run) and the
 * highest seen, polled every few
 * milliseconds through the inspector (Runtime.getHeapUsage). The used heap holds garbage not yet collected, so its
 * peak depends on when V8's collector ran (bench/README.md, "Memory"). With `retained`, each poll first asks for a
 * full collection (HeapProfiler.collectGarbage): the peak is then what the work held live at once, at the price of
 * slowing it. The process's RSS also holds the local D1's SQLite pages; this is the isolate's own.
 */
export async function heapWhile(worker, work, { everyMs = 5, retained = false, poke } = {}) {
  const session = await connect(worker);
  // The collection runs when the isolate next runs: `poke` (a request that allocates next to nothing) makes it run.
  const collected = session.send("HeapProfiler.collectGarbage");
  await poke?.();
  await within(collected, 5_000);
  const beforeKiB = (await session.send("Runtime.getHeapUsage")).result.usedSize / 1024;
  const poller = pollHeap(session, everyMs, retained);
  let result;
  try {
    result = await work();
  } finally {
    await poller.stop();
    session.close();
  }
  const peakKiB = Math.max(beforeKiB, ...poller.polls.map((p) => p.used / 1024));
  return { result, beforeKiB, peakKiB };
}
