import { describe, expect, it } from "vitest";
import { createAbandonmentEnvelope } from "../../shared/envelopes/pledge";
import { isoSeconds } from "../../shared/time";
import { recordD1 } from "../helpers/d1-recorder";
import { action, delegation, keptOutcome, pledge, revocation, subdelegation } from "../helpers/envelopes";
import { FLEET, FleetClient, signedIn, subscribed } from "../helpers/fleet";
import { fleetAnswer } from "../helpers/fleet-app";
import { newWallet } from "../helpers/wallet";

interface Cost {
  read: number;
  written: number;
}

/** A registration through the app by a project token, with D1's row counts of every statement it ran. */
async function registered(bot: FleetClient, path: string, body: unknown): Promise<Cost> {
  const recording = recordD1();
  const { res, settled } = await fleetAnswer(
    new Request(`${FLEET}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${bot.bearer}`,
        "cf-connecting-ip": bot.ip,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    }),
    { DB: recording.db },
  );
  expect(res.status, await res.clone().text()).toBe(201);
  // The registration's own statements: what ran before its answer (the background fan-out runs after it).
  const rows = [...recording.rows];
  await settled();
  return {
    read: rows.reduce((sum, r) => sum + r.read, 0),
    written: rows.reduce((sum, r) => sum + r.written, 0),
  };
}

/** A project, its owner's token, and one registration of every kind; each kind's cost. */
async function everyKind(options: { endpoint: boolean }): Promise<Record<string, Cost>> {
  const [principal, agent, subagent, counterparty] = [newWallet(), newWallet("p2tr"), newWallet(), newWallet()];
  const owner = await signedIn(principal.address);
  const projectId = (await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "rows" })).body
    .project.id;
  if (options.endpoint) await subscribed(owner, projectId);
  const token = await owner.call<{ secret: string }>("POST", "/api/tokens", { project_id: projectId, name: "rows" });
  const bot = new FleetClient();
  bot.bearer = token.body.secret;
  const post = (path: string, envelope: unknown) => registered(bot, path, { project_id: projectId, envelope });

  const grant = await delegation(principal, agent);
  const below = await subdelegation(grant.id, agent, subagent);
  const lone = await delegation(principal, newWallet());
  const kept = await pledge(principal, counterparty);
  const abandoned = await pledge(principal, counterparty);
  const costs: Record<string, Cost> = {};
  costs.delegation = await post("/api/delegations", grant.envelope);
  costs.subdelegation = await post("/api/subdelegations", below.envelope);
  costs.action = await post("/api/actions", (await action(grant.id, agent)).envelope);
  costs.pledge = await post("/api/pledges", kept.envelope);
  costs.outcome = await post(`/api/pledges/${kept.id}/outcome`, (await keptOutcome(kept.id, counterparty)).envelope);
  await post("/api/pledges", abandoned.envelope);
  const abandonment = await createAbandonmentEnvelope(
    { pledge_id: abandoned.id, abandoned_at: isoSeconds(Date.now()), reason: "changed plans" },
    principal,
  );
  costs.abandonment = await post("/api/pledge-abandonments", abandonment.envelope);
  await post("/api/delegations", lone.envelope);
  costs.revocation = await post("/api/revocations", (await revocation(lone.id, principal)).envelope);
  costs.cascade = await post("/api/revocations", (await revocation(grant.id, principal)).envelope);
  return costs;
}

/**
 * Rows written by an action's one statement, as D1 counts them: the envelope row, which is also its log leaf, and an
 * entry in each of the four indexes an action enters (envelopes_project_id, _project_kind, _leaf, _delegation; the
 * others are partial and skip it). Before d1-migrations/0021 it was 8: the AUTOINCREMENT counter in sqlite_sequence
 * and a `log_leaves` row with its primary-key and envelope indexes instead of envelopes_leaf. docs/scale.md, "What it
 * costs", prices each kind.
 */
const ACTION_WRITES = 1 + 4;
/** The outbox event a project with an active endpoint adds: its row, its primary-key index and outbox_pending. */
const EVENT_WRITES = 3;

describe("what a registration costs in D1 rows", () => {
  it("each kind, without and with a webhook endpoint (its outbox event)", async () => {
    const quiet = await everyKind({ endpoint: false });
    expect(quiet.action).toEqual({ read: 7, written: ACTION_WRITES });
    expect(quiet).toEqual({
      // The first registration also reads the token (and its creator's membership) the isolate had not seen, and
      // writes its last use (one row): its own statement is 4, as a sub-delegation's without envelopes_parent.
      delegation: { read: 8, written: 5 },
      subdelegation: { read: 8, written: 5 },
      action: { read: 7, written: ACTION_WRITES },
      // A pledge enters envelopes_pledge_id, _pledges_pending and _swearer besides the four every row enters.
      pledge: { read: 6, written: 7 },
      // The resolution's row enters envelopes_resolutions and _pledge_resolution, and the pledge's
      // move out of pending is one row updated.
      outcome: { read: 10, written: 7 },
      abandonment: { read: 10, written: 7 },
      // A revocation's row enters the four, and its target's status is one row updated...
      revocation: { read: 21, written: 5 },
      // ...and one more for each grant below the target the cascade revokes (here one sub-delegation).
      cascade: { read: 25, written: 6 },
    });
    const withEvents = await everyKind({ endpoint: true });
    for (const [kind, cost] of Object.entries(quiet)) {
      expect(withEvents[kind]?.written, kind).toBe(cost.written + EVENT_WRITES);
    }
  });
});
