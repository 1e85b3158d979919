// Witnessing (issue 48; docs/log.md "Witnesses"): how long after a checkpoint is integrated it carries the
// cosignatures of every configured witness. Three witnesses from the test harness (test/harness/witness-server.mjs:
// C2SP tlog-witness on loopback, each its own key and state, checking the log's signature and the consistency proof)
// are the fleet's LOG_WITNESSES. The log probe (bench/lib/log-probe.mjs) registers one action a second in a project
// of its own, so its integrator signs about one checkpoint a second and sends each to the three; meanwhile the
// harness reads the project's state and witness rows from D1 every POLL_MS. A checkpoint's delay is the latest of
// its witnesses' `cosigned_at` less the checkpoint's `updated_at` (both stamped by the integrator's own clock, so the
// poll's spacing is not in the figure); a checkpoint superseded before all three cosigned counts apart. The probe's
// own "registration → first checkpoint" figure is reported beside it for scale.
import { startWitness } from "../../test/harness/witness-server.mjs";
import { checkpointProbe, PROBE_TOKENS } from "../lib/log-probe.mjs";
import { startFleetAndBare } from "../lib/stack.mjs";
import { benchProjects, signActions } from "./registration.mjs";

export const WITNESS_COUNT = 3;
const POLL_MS = 20;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted, p) =>
  sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]) : Number.NaN;

/** Reads the project's checkpoints and cosignatures from D1 until `done()`; per checkpoint size, its delay. */
async function watchCosignatures(db, projectId, done) {
  const read = db.prepare(
    `SELECT s.size, s.updated_at, count(w.witness) AS n, max(w.cosigned_at) AS last
     FROM log_state s LEFT JOIN log_witnesses w ON w.project_id = s.project_id AND w.cosigned_size = s.size
     WHERE s.project_id = ? GROUP BY s.size, s.updated_at`,
  );
  const seen = new Map();
  while (!done()) {
    const row = await read
      .bind(projectId)
      .first()
      .catch(() => undefined);
    if (row && !seen.get(row.size)?.cosigned) {
      seen.set(row.size, { cosigned: row.n >= WITNESS_COUNT, delay: row.last - row.updated_at });
    }
    await sleep(POLL_MS);
  }
  return [...seen.values()];
}

/** `seconds` checkpoints (about one a second) of a witnessed project: the delay to every witness's cosignature. */
export async function witnessBench({ fx, bundles, seconds, log }) {
  const witnesses = await Promise.all(
    Array.from({ length: WITNESS_COUNT }, (_, i) => startWitness({ name: `witness.bench/w${i + 1}` })),
  );
  const { stack, db } = await startFleetAndBare(bundles, (s) => {
    const publicKey = Buffer.from(JSON.parse(s.FLEET_SIGNING_KEY).x, "base64url").toString("base64");
    for (const w of witnesses) w.trust({ prefix: "", public_key: publicKey });
    return { LOG_WITNESSES: JSON.stringify(witnesses.map((w) => ({ vkey: w.vkey, url: w.url }))) };
  });
  try {
    const fleet = stack.urls.fleet;
    const [prober] = await benchProjects({ fx, db, fleetUrl: fleet, count: 1, tokens: PROBE_TOKENS });
    const actions = (await signActions(fx, [prober], seconds)).map((a) => a.envelope);
    let finished = false;
    const [bound, checkpoints] = await Promise.all([
      checkpointProbe({ fleet, project: prober, actions, net: 7 }).finally(async () => {
        await sleep(2_000); // the last checkpoint's witnesses
        finished = true;
      }),
      watchCosignatures(db, prober.projectId, () => finished),
    ]);
    const delays = checkpoints
      .filter((c) => c.cosigned)
      .map((c) => c.delay)
      .sort((a, b) => a - b);
    const result = {
      witnesses: WITNESS_COUNT,
      checkpoints: checkpoints.length,
      cosigned: delays.length,
      p50: percentile(delays, 0.5),
      p99: percentile(delays, 0.99),
      max: delays.at(-1) ?? Number.NaN,
      bound,
      refusals: witnesses.flatMap((w) => w.requests).filter((r) => r.status !== 200).length,
    };
    log(`witnesses: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await stack.dispose().catch(() => {});
    await Promise.all(witnesses.map((w) => w.close()));
  }
}
