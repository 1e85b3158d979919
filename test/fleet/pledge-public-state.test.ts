// Security review item 6: the public state of a pledge registered in several projects does not depend on which
// project registered it first (any valid resolution counts, the first registered decides), and concurrent
// outcomes for one pledge in one project store exactly one.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createOutcomeEnvelope } from "../../shared/envelopes/pledge";
import { isoSeconds } from "../../shared/time";
import { pledge } from "../helpers/envelopes";
import { FleetClient, signedIn, subscribed } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet, type Wallet } from "../helpers/wallet";

async function project(owner: FleetClient, name: string) {
  return (await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name })).body.project.id;
}

function outcome(pledgeId: string, counterparty: Wallet, result: "kept" | "broken", offsetMs = 0) {
  return createOutcomeEnvelope(
    {
      pledge_id: pledgeId,
      outcome: result,
      resolved_at: isoSeconds(Date.now() - 1000 - offsetMs),
      resolved_by: counterparty.address,
      evidence: { mechanism: "counterparty_signs", result, witness: `counterparty_sig=${offsetMs}` },
      dispute_window_ends_at: isoSeconds(Date.now() + 60_000),
    },
    counterparty,
  );
}

const publicStatus = async (id: string) =>
  (await new FleetClient().call<{ pledge: { status: string } }>("GET", `/api/pledges/${id}`)).body.pledge.status;

describe("attack: public pledge state follows registration order", () => {
  for (const order of ["resolved project registered second", "resolved project registered first"] as const) {
    it(`an outcome registered in one project is the public state (${order})`, async () => {
      const swearer = newWallet();
      const counterparty = newWallet();
      const owner = await signedIn(swearer.address);
      const [a, b] = [await project(owner, "A"), await project(owner, "B")];
      const p = await pledge(swearer, counterparty);
      const [first, second] = order === "resolved project registered second" ? [a, b] : [b, a];
      await owner.call("POST", "/api/pledges", { project_id: first, envelope: p.envelope });
      await owner.call("POST", "/api/pledges", { project_id: second, envelope: p.envelope });
      expect(await publicStatus(p.id)).toBe("pending");
      const kept = await outcome(p.id, counterparty, "kept");
      const res = await owner.call("POST", "/api/pledge-outcomes", { project_id: b, envelope: kept.envelope });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await publicStatus(p.id)).toBe("kept");
      const bySwearer = await new FleetClient().call<{ pledges: { id: string; status: string }[] }>(
        "GET",
        `/api/pledges?swearer=${swearer.address}`,
      );
      expect(bySwearer.body.pledges).toEqual([expect.objectContaining({ id: p.id, status: "kept" })]);
    });
  }
});

describe("attack: concurrent outcomes for one pledge", () => {
  it("eight distinct valid outcomes at once: one stored, the others 409 pledge_not_pending, one event", async () => {
    const swearer = newWallet();
    const counterparty = newWallet();
    const owner = await signedIn(swearer.address);
    const projectId = await project(owner, "race");
    await subscribed(owner, projectId); // so the race's event is kept, and counted below
    const p = await pledge(swearer, counterparty);
    await owner.call("POST", "/api/pledges", { project_id: projectId, envelope: p.envelope });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => outcome(p.id, counterparty, i % 2 ? "kept" : "broken", i * 1000)),
    );
    const answers = await Promise.all(
      outcomes.map((o) => owner.call("POST", "/api/pledge-outcomes", { project_id: projectId, envelope: o.envelope })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body.reason).toBe("pledge_not_pending");
    }
    const stored = await (await registryDb(projectId))
      .prepare("SELECT count(*) AS n FROM envelopes WHERE project_id = ? AND pledge_id = ? AND kind = 'outcome'")
      .bind(projectId, p.id)
      .first<{ n: number }>();
    expect(stored?.n).toBe(1);
    const events = await (await registryDb(projectId))
      .prepare("SELECT count(*) AS n FROM outbox WHERE project_id = ? AND event_type = 'pledge.outcome'")
      .bind(projectId)
      .first<{ n: number }>();
    expect(events?.n).toBe(1);
  });
});
