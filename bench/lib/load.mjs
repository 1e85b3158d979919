// Load on loopback with autocannon. Each request is taken from one shared queue (setupRequest), so every request
// of the run is distinct even across connections; throughput counts only the expected status, never a 429.
import http from "node:http";
import autocannon from "autocannon";

/**
 * Fires `requests` (an array of {method, path, headers, body}) at `url`, `connections` at a time, each request
 * exactly once (or `amount` times cycling when `cycle` is set), at most `rate` per second when given. Returns ok/s,
 * latency percentiles and the status-code tally.
 */
export async function load(url, requests, { connections = 50, expect = 200, amount, duration, rate } = {}) {
  let next = 0;
  const total = amount ?? requests.length;
  const start = performance.now();
  // autocannon ends an `amount` run on its one-second tick, so its own duration rounds up to whole seconds (a
  // 2.1 s run reads as 3 s): the run's time is taken at its last answer instead.
  let last = start;
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        pipelining: 1,
        timeout: 30, // seconds: on a loaded 2-core machine a slow answer is latency, not a lost request
        ...(duration ? { duration } : { amount: total }),
        // An offered rate (requests per second over all connections) instead of as fast as answers come back.
        ...(rate ? { overallRate: rate } : {}),
        requests: [
          {
            setupRequest: (req) => {
              const r = requests[next++ % requests.length];
              return { ...req, ...r, headers: { ...req.headers, ...r.headers } };
            },
          },
        ],
      },
      (err, out) => (err ? reject(err) : resolve(out)),
    );
    instance.on("response", () => {
      last = performance.now();
    });
  });
  const seconds = (last - start) / 1000;
  const statuses = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count;
  const ok = statuses[expect] ?? 0;
  return {
    ok,
    sent: result.requests.sent,
    errors: result.errors + result.timeouts,
    statuses,
    seconds,
    okPerSecond: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

/**
 * `load`, with workerd's CPU per request beside the rate (`stack.cpuMs()`: every workerd thread, the worker and
 * its local D1 and objects, not the load generator): steadier than the rate on a shared machine.
 */
export async function loadWithCpu(stack, url, requests, options) {
  const before = stack.cpuMs();
  const result = await load(url, requests, options);
  return { ...result, cpuUs: ((stack.cpuMs() - before) * 1000) / requests.length };
}

/** A short warm-up so first-request costs (isolate start, noble precomputes, DO creation) are not measured. */
export async function warm(url, requests, connections = 4) {
  await load(url, requests, { connections, expect: 0 });
}

/** Distinct client addresses: CF-Connecting-IP of request i, `perIp` requests per address, back to back. */
export function clientIp(i, perIp) {
  const n = Math.floor(i / perIp);
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * The address of request i of `total` when clients interleave, as independent clients do: ceil(total / perIp)
 * addresses taking turns, each sending at most `perIp` over the run, from address number `base` on.
 */
export function interleavedIp(base, i, total, perIp) {
  return clientIp(base + (i % Math.ceil(total / perIp)), 1);
}

/** The `p` quantile of ascending `sorted` (0 for none). */
export const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0;

/** The median of `items` by `value` (the lower middle of an even count), `items` left as they are. */
export const medianBy = (items, value = (x) => x) =>
  [...items].sort((a, b) => value(a) - value(b))[Math.floor((items.length - 1) / 2)];

/**
 * Connections the open-loop sender keeps to the server at most. Without a bound, a server that falls behind gets
 * a new connection for every waiting request: at 500/s for a minute that passed workerd's open-file limit and
 * crashed it (`accept: Too many open files`). Past the bound, requests wait in the sender's queue, and their
 * latency (taken from when each was due) shows it, as it would for clients queued in front of a busy server.
 */
const OPEN_LOOP_CONNECTIONS = 512;
const openLoopAgent = new http.Agent({ keepAlive: true, maxSockets: OPEN_LOOP_CONNECTIONS });

/**
 * One request through the bounded agent: its status, once the body is read. A kept-alive connection the server
 * closed while idle fails the request written to it before the server read a byte (Node's `reusedSocket` race):
 * that request is sent once more on a new connection. Any other failure is the request's.
 */
function send(url, r, again = true, timeoutMs = undefined) {
  return new Promise((resolve, reject) => {
    const options = { method: r.method, headers: r.headers, agent: openLoopAgent };
    // The bound counts from the send, the wait for one of the agent's connections included: a client waits that.
    const timer =
      timeoutMs &&
      setTimeout(
        () => req.destroy(Object.assign(new Error("no answer within the bound"), { code: "NO_ANSWER" })),
        timeoutMs,
      );
    const settle = (done) => (value) => {
      clearTimeout(timer);
      done(value);
    };
    const req = http.request(`${url}${r.path}`, options, (res) => {
      res.resume();
      res.on("end", () => settle(resolve)(res.statusCode));
      res.on("error", settle(reject));
    });
    req.on("error", (err) => {
      if (again && req.reusedSocket && err.code === "ECONNRESET") {
        clearTimeout(timer);
        send(url, r, false, timeoutMs).then(resolve, reject);
      } else settle(reject)(err);
    });
    req.end(r.body);
  });
}

/**
 * Open-loop load: request i is sent at start + i / rate seconds whether or not earlier ones were answered (the
 * way independent clients arrive), so a server that falls behind shows it as growing latency, not as a slower
 * sender. `lagMs`: how long after the last request was sent the last answer came. The first `warmUp` requests are
 * sent on the same schedule and left out of the figures (their p99 is `warmUpP99`; `warmUpFailed` counts those not
 * answered `expect`, `errors` every request that failed to send): a steady state measured after its start.
 * `timeline`: also each measured request's send time (performance.now()) and latency, to set against a profile.
 * `timeoutMs`: a request with no answer within it is given up (counted in `errors` as `NO_ANSWER`, unanswered);
 * `okP50`/`okP99` are the latencies of the answers that were `expect` alone (the accepted requests').
 */
export async function openLoad(url, requests, { rate, expect = 200, warmUp = 0, timeline = false, timeoutMs }) {
  const statuses = {};
  const errorKinds = {};
  const latencies = [];
  const okLatencies = [];
  const warmLatencies = [];
  const sentAt = [];
  let warmUpFailed = 0;
  let errors = 0;
  let lastAnswer = 0;
  const start = performance.now();
  const sends = requests.map(async (r, i) => {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = performance.now();
    try {
      const status = await send(url, r, true, timeoutMs);
      if (i >= warmUp) statuses[status] = (statuses[status] ?? 0) + 1;
      else if (status !== expect) warmUpFailed += 1;
      if (i >= warmUp && status === expect) okLatencies.push(performance.now() - sent);
    } catch (err) {
      errors += 1;
      const kind = err?.code ?? err?.message ?? String(err);
      errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
    }
    lastAnswer = performance.now();
    (i < warmUp ? warmLatencies : latencies).push(lastAnswer - sent);
    if (timeline && i >= warmUp) sentAt.push({ sent, ms: lastAnswer - sent });
  });
  await Promise.all(sends);
  const lastSent = start + ((requests.length - 1) * 1000) / rate;
  const seconds = (lastAnswer - start) / 1000;
  latencies.sort((a, b) => a - b);
  okLatencies.sort((a, b) => a - b);
  warmLatencies.sort((a, b) => a - b);
  const ok = statuses[expect] ?? 0;
  return {
    ok,
    sent: requests.length - warmUp,
    errors,
    ...(errors ? { errorKinds } : {}),
    statuses,
    seconds,
    okPerSecond: ok / seconds,
    p50: Math.round(percentile(latencies, 0.5)),
    p99: Math.round(percentile(latencies, 0.99)),
    okP50: Math.round(percentile(okLatencies, 0.5)),
    okP99: Math.round(percentile(okLatencies, 0.99)),
    lagMs: Math.round(lastAnswer - lastSent),
    ...(warmUp && { warmUpP99: Math.round(percentile(warmLatencies, 0.99)), warmUpFailed }),
    ...(timeline && { timeline: sentAt }),
  };
}
