// OC Pledge at the registry: registration (pending), public reads by id and swearer, outcomes and abandonments
// moving a pending pledge to its final state, and the refusals of the Pledge state table.

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createAbandonmentEnvelope } from "../../shared/envelopes/pledge";
import { isoSeconds } from "../../shared/time";
import { keptOutcome, pledge } from "../helpers/envelopes";
import { FleetClient, signedIn, subscribed } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

async function setup() {
  const swearer = newWallet();
  const counterparty = newWallet();
  const owner = await signedIn(swearer.address);
  const res = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "pledges" });
  return { swearer, counterparty, owner, projectId: res.body.project.id };
}

describe("pledges", () => {
  it("registers a pending pledge, readable publicly by id and by swearer", async () => {
    const { swearer, counterparty, owner, projectId } = await setup();
    const p = await pledge(swearer, counterparty);
    const res = await owner.call<{ pledge: { id: string; status: string; swearer: string } }>("POST", "/api/pledges", {
      project_id: projectId,
      envelope: p.envelope,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.pledge).toMatchObject({ id: p.id, status: "pending", swearer: swearer.address });
    const anonymous = new FleetClient();
    expect((await anonymous.call<{ pledge: { id: string } }>("GET", `/api/pledges/${p.id}`)).body.pledge.id).toBe(p.id);
    const bySwearer = await anonymous.call<{ pledges: { id: string }[] }>(
      "GET",
      `/api/pledges?swearer=${swearer.address}`,
    );
    expect(bySwearer.body.pledges.map((x) => x.id)).toEqual([p.id]);
    // The public record does not say which project registered it (issue 26, item 9); the project's own answer does.
    const byId = await anonymous.call<{ pledge: Record<string, unknown> }>("GET", `/api/pledges/${p.id}`);
    expect(byId.body.pledge).not.toHaveProperty("project_id");
    expect(bySwearer.body.pledges[0]).not.toHaveProperty("project_id");
    expect(JSON.stringify(byId.body) + JSON.stringify(bySwearer.body)).not.toContain(projectId);
    expect(res.body.pledge).toMatchObject({ project_id: projectId });
    expect((await anonymous.call("GET", `/api/pledges/${"0".repeat(64)}`)).status).toBe(404);
    expect(
      (await owner.call("POST", "/api/pledges", { project_id: projectId, envelope: p.envelope })).body.reason,
    ).toBe("already_registered");
  });

  it("an outcome by the counterparty moves pending → kept; a second one is 409 pledge_not_pending", async () => {
    const { swearer, counterparty, owner, projectId } = await setup();
    await subscribed(owner, projectId); // so the events are kept, and listed below
    const p = await pledge(swearer, counterparty);
    await owner.call("POST", "/api/pledges", { project_id: projectId, envelope: p.envelope });
    const kept = await keptOutcome(p.id, counterparty);
    const res = await owner.call("POST", `/api/pledges/${p.id}/outcome`, {
      project_id: projectId,
      envelope: kept.envelope,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const read = await owner.call<{ pledge: { status: string } }>("GET", `/api/pledges/${p.id}`);
    expect(read.body.pledge.status).toBe("kept");
    const abandon = await createAbandonmentEnvelope(
      { pledge_id: p.id, abandoned_at: isoSeconds(Date.now()), reason: "late" },
      swearer,
    );
    const refused = await owner.call("POST", "/api/pledge-abandonments", {
      project_id: projectId,
      envelope: abandon.envelope,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.reason).toBe("pledge_not_pending");
    const events = await (await registryDb(projectId))
      .prepare("SELECT event_type FROM outbox WHERE project_id = ? ORDER BY created_at")
      .bind(projectId)
      .all<{ event_type: string }>();
    expect(events.results.map((e) => e.event_type)).toEqual(["pledge.registered", "pledge.outcome"]);
  });

  it("an abandonment by the swearer moves pending → abandoned; by anyone else 403 signer_must_be_swearer", async () => {
    const { swearer, counterparty, owner, projectId } = await setup();
    const p = await pledge(swearer, counterparty);
    await owner.call("POST", "/api/pledges", { project_id: projectId, envelope: p.envelope });
    const byOther = await createAbandonmentEnvelope(
      { pledge_id: p.id, abandoned_at: isoSeconds(Date.now()), reason: "x" },
      counterparty,
    );
    const refused = await owner.call("POST", `/api/pledges/${p.id}/abandon`, {
      project_id: projectId,
      envelope: byOther.envelope,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe("signer_must_be_swearer");
    const mine = await createAbandonmentEnvelope(
      { pledge_id: p.id, abandoned_at: isoSeconds(Date.now()), reason: "changed" },
      swearer,
    );
    expect(
      (await owner.call("POST", `/api/pledges/${p.id}/abandon`, { project_id: projectId, envelope: mine.envelope }))
        .status,
    ).toBe(201);
    expect((await owner.call<{ pledge: { status: string } }>("GET", `/api/pledges/${p.id}`)).body.pledge.status).toBe(
      "abandoned",
    );
  });

  it("an outcome for an unknown pledge is 404; one whose pledge_id is not the path's is 400", async () => {
    const { swearer, counterparty, owner, projectId } = await setup();
    const p = await pledge(swearer, counterparty);
    const outcome = await keptOutcome(p.id, counterparty);
    expect(
      (await owner.call("POST", "/api/pledge-outcomes", { project_id: projectId, envelope: outcome.envelope })).status,
    ).toBe(404);
    await owner.call("POST", "/api/pledges", { project_id: projectId, envelope: p.envelope });
    const other = `/api/pledges/${"1".repeat(64)}/outcome`;
    expect((await owner.call("POST", other, { project_id: projectId, envelope: outcome.envelope })).body.reason).toBe(
      "invalid_body",
    );
  });
});
