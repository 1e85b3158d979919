// One Durable Object per project's log (issue 29; docs/log.md "Integration"): the project's one integrator. A
// registration pokes it after its batch committed; the object integrates what waits CHECKPOINT_INTERVAL_MS later
// (an alarm, so a burst of registrations costs one integration and one signed checkpoint), then re-arms at once
// while leaves still wait. The log itself is in D1; the object keeps only its project id. The cron pokes projects
// whose log is behind (cron.ts), so a lost poke costs latency, not leaves. After each run it sends the current
// checkpoint to the deployment's witnesses that have not cosigned it (log/witness/round.ts), off every request's
// path; a witness to try again later sets the alarm for then (a poke moves an alarm set further out than one
// interval back to the interval, so a witness's backoff never delays a checkpoint).
import { DurableObject } from "cloudflare:workers";
import { errorFields } from "../../../../shared/http/request-line";
import { logEvent } from "../../../../shared/http/request-log";
import { type Integration, integrateFor } from "../log/integrate";
import { logKey } from "../log/key";
import { configuredWitnesses } from "../log/witness/config";
import { witnessRound } from "../log/witness/round";
import { projectDb } from "../registry/shards";

/**
 * How long after a poke the integrator runs: the bound between a registration and the first checkpoint covering it
 * is this plus one integration (docs/log.md), and a burst of registrations within it costs one checkpoint.
 * LOG_CHECKPOINT_INTERVAL_MS overrides it (the tests set an hour and integrate explicitly: test/helpers/log.ts).
 */
export const CHECKPOINT_INTERVAL_MS = 1_000;
/**
 * The share of the interval a poke may take off its wait, at random. Projects poked together (a client writing to
 * several, a deploy's first minute) would otherwise integrate together every interval, one batch after another on
 * the database and, locally, on the registrations' thread (issue 31's tail: 5–30 ms once a second); with a wait of
 * 0.75–1 interval they drift apart within a few intervals. The bound stays the interval.
 */
const INTERVAL_SPREAD = 0.25;
/** How long one alarm integrates before handing over to the next (re-armed at once). */
const ALARM_BUDGET_MS = 5_000;
const PROJECT_KEY = "project";

/** What the integrator reads of the fleet's bindings (the fleet's FleetBindings extends it). */
export interface LogIntegratorBindings {
  DB: D1Database;
  FLEET_SIGNING_KEY?: string;
  FLEET_ORIGIN?: string;
  LOG_CHECKPOINT_INTERVAL_MS?: string;
  LOG_WITNESSES?: string;
}

export class LogIntegrator extends DurableObject<LogIntegratorBindings> {
  private project: string | undefined;

  private async remember(projectId: string): Promise<void> {
    if (this.project === projectId) return;
    this.project = projectId;
    await this.ctx.storage.put(PROJECT_KEY, projectId);
  }

  /**
   * New leaves in the project: integrated by an alarm one interval from now, unless one is already set. Answers when
   * that alarm fires: every leaf committed before then is in its integration (after-write.ts skips pokes until then).
   */
  async poke(projectId: string): Promise<number> {
    await this.remember(projectId);
    const set = await this.ctx.storage.getAlarm();
    const interval = Number(this.env.LOG_CHECKPOINT_INTERVAL_MS ?? CHECKPOINT_INTERVAL_MS);
    if (set !== null && set <= Date.now() + interval) return set;
    const at = Date.now() + Math.round(interval * (1 - INTERVAL_SPREAD * Math.random()));
    await this.ctx.storage.setAlarm(at);
    return at;
  }

  /** Every waiting leaf, now (the cron's catch-up, tests): how far the log got. */
  async integrateNow(projectId: string): Promise<Integration> {
    await this.remember(projectId);
    const result = await this.run(projectId, Number.POSITIVE_INFINITY);
    if (result.witnessRetryAt !== undefined) await this.retryWitnessesAt(result.witnessRetryAt);
    return result;
  }

  override async alarm(): Promise<void> {
    const projectId = this.project ?? (await this.ctx.storage.get<string>(PROJECT_KEY));
    if (!projectId) return;
    this.project = projectId;
    try {
      const result = await this.run(projectId, ALARM_BUDGET_MS);
      if (result.more) await this.ctx.storage.setAlarm(Date.now());
      else if (result.witnessRetryAt !== undefined) await this.retryWitnessesAt(result.witnessRetryAt);
    } catch (err) {
      // Thrown again so the platform retries the alarm (with backoff); the cron pokes the project if it gives up.
      logEvent("fleet", "log_integration_failed", errorFields(err), "error");
      throw err;
    }
  }

  private async run(projectId: string, budgetMs: number): Promise<Integration & { witnessRetryAt?: number }> {
    // The project's shard, as this isolate remembers it or finds it (registry/shards.ts); a project no shard holds
    // has no log.
    const db = await projectDb(this.env, projectId);
    const result = await integrateFor(db, logKey(this.env), projectId, budgetMs);
    const witnesses = configuredWitnesses(this.env);
    if (witnesses.length === 0) return result;
    // The checkpoint is stored: a witness's failure is its own record, never the integration's.
    const round = await witnessRound(db, projectId, witnesses).catch((err: unknown) => {
      logEvent("fleet", "log_witnessing_failed", errorFields(err), "error");
      return undefined;
    });
    return { ...result, witnessRetryAt: round?.retryAt };
  }

  /** An alarm for a witness's retry, unless one is set sooner (a poke's, or an earlier retry's). */
  private async retryWitnessesAt(at: number): Promise<void> {
    const set = await this.ctx.storage.getAlarm();
    if (set === null || set > at) await this.ctx.storage.setAlarm(at);
  }
}
