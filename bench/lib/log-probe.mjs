// The bound between a registration and the first checkpoint that covers it (issue 29; docs/log.md "The bound"),
// measured while the sustained load runs: once a second the probe registers one action in a project of its own,
// notes the 201's `log_index` and when it came, and reads the project's checkpoint every POLL_MS (one poller for
// every probe waiting) until its size passes that index. The delay is from the registration's answer to the answer
// of the first poll whose checkpoint covers it, so it includes up to POLL_MS of the poll's own spacing.
// Its project's limits are kept: one registration a second, polls only while a probe waits, round POLL_CALLERS
// tokens and addresses (10 polls/s over five callers: 120/min each, inside a caller's 150 + 150/min and an address's
// 120 + 120/min over the minute; the project's 600 + 600/min holds the 660 of both).

/** The probe project's tokens: the first registers, the others poll. */
export const PROBE_TOKENS = 6;
const POLL_MS = 100;
/** After the last registration, how long a probe may wait to be covered before it counts as not covered. */
const GIVE_UP_MS = 30_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted, p) =>
  sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]) : Number.NaN;

/**
 * `actions` (signed envelopes of `project`, a project with PROBE_TOKENS tokens), one a second, against `fleet`;
 * addresses `10.253.<net>.*`. Returns the delays' p50/p99/max (ms), how many were registered and covered, and
 * the polls' answers by status.
 */
export async function checkpointProbe({ fleet, project, actions, net }) {
  const ip = (host) => `10.253.${net}.${host}`;
  const waiting = [];
  const delays = [];
  const polls = {};
  const failed = {};
  let poller;
  let pollCount = 0;

  const poll = async () => {
    while (waiting.length > 0) {
      const sent = performance.now();
      const caller = 1 + (pollCount++ % (PROBE_TOKENS - 1));
      try {
        const res = await fetch(`${fleet}/api/log/checkpoint?project_id=${project.projectId}`, {
          headers: { authorization: `Bearer ${project.secrets[caller]}`, "cf-connecting-ip": ip(caller) },
        });
        const text = await res.text();
        const at = performance.now();
        polls[res.status] = (polls[res.status] ?? 0) + 1;
        if (res.status === 200) {
          const size = Number(text.split("\n")[1]);
          for (let i = waiting.length - 1; i >= 0; i--) {
            if (waiting[i].index < size) delays.push(at - waiting.splice(i, 1)[0].answeredAt);
          }
        }
      } catch (err) {
        polls[err?.code ?? "error"] = (polls[err?.code ?? "error"] ?? 0) + 1;
      }
      await sleep(Math.max(0, POLL_MS - (performance.now() - sent)));
    }
    poller = undefined;
  };

  const start = performance.now();
  await Promise.all(
    actions.map(async (envelope, i) => {
      await sleep(start + i * 1000 - performance.now());
      try {
        const res = await fetch(`${fleet}/api/actions`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${project.secrets[0]}`,
            "cf-connecting-ip": ip(0),
          },
          body: JSON.stringify({ project_id: project.projectId, envelope }),
        });
        const answeredAt = performance.now();
        const body = await res.json();
        if (res.status !== 201 || !Number.isInteger(body.log_index)) {
          failed[res.status] = (failed[res.status] ?? 0) + 1;
          return;
        }
        waiting.push({ index: body.log_index, answeredAt });
        poller ??= poll();
      } catch (err) {
        failed[err?.code ?? "error"] = (failed[err?.code ?? "error"] ?? 0) + 1;
      }
    }),
  );
  const last = performance.now();
  while (poller && performance.now() - last < GIVE_UP_MS) await sleep(POLL_MS);
  const uncovered = waiting.length;
  waiting.length = 0; // ends the poller
  await poller;
  delays.sort((a, b) => a - b);
  return {
    registered: delays.length + uncovered,
    covered: delays.length,
    failed,
    polls,
    p50: percentile(delays, 0.5),
    p99: percentile(delays, 0.99),
    max: Math.round(delays.at(-1) ?? Number.NaN),
  };
}

/**
 * How long after `since` (the load's last answer) every project's log covers all its leaves: the bound for the
 * busy logs, read from D1 every POLL_MS (the cron's own test, log/catch-up.ts). Undefined past GIVE_UP_MS.
 */
export async function logsCaughtUp(db, since) {
  const behind = db.prepare(
    `SELECT count(*) AS n FROM projects p LEFT JOIN log_state s ON s.project_id = p.id
     WHERE EXISTS (SELECT 1 FROM envelopes l WHERE l.project_id = p.id AND l.leaf_idx >= coalesce(s.size, 0))`,
  );
  while (performance.now() - since < GIVE_UP_MS) {
    if ((await behind.first()).n === 0) return Math.round(performance.now() - since);
    await sleep(POLL_MS);
  }
  return undefined;
}
