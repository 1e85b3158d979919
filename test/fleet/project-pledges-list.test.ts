// GET /api/projects/{id}/pledges: a project's pledges with their state there, for its members and its own tokens
// (other callers learn nothing: 404 not_found, as every project-scoped list), filtered by ?state=, paged by cursor
// in registration order, and described in the OpenAPI document.
import { describe, expect, it } from "vitest";
import { createAbandonmentEnvelope } from "../../shared/envelopes/pledge";
import { isoSeconds } from "../../shared/time";
import { keptOutcome, pledge } from "../helpers/envelopes";
import { FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { newWallet, type Wallet } from "../helpers/wallet";

interface ListedPledge {
  id: string;
  swearer: string;
  state: string;
  expires_at: string;
  registered_at: string;
}
type PledgePage = { pledges: ListedPledge[]; next_cursor: string | null };
type Registered = { id: string; swearer: Wallet; expiresAt: string };

const list = (client: FleetClient, projectId: string, query = "") =>
  client.call<PledgePage>("GET", `/api/projects/${projectId}/pledges${query}`);

/** A project whose owner registered `count` pledges (each by a fresh swearer), in that order. */
async function projectWithPledges(count: number) {
  const { owner, projectId } = await ownerWithProject("pledge list");
  const counterparty = newWallet();
  const registered: Registered[] = [];
  for (let i = 0; i < count; i++) {
    const swearer = newWallet();
    const p = await pledge(swearer, counterparty);
    const res = await owner.call("POST", "/api/pledges", { project_id: projectId, envelope: p.envelope });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    registered.push({ id: p.id, swearer, expiresAt: p.envelope.expires_at });
  }
  return { owner, projectId, counterparty, registered };
}

async function tokenFor(owner: FleetClient, projectId: string, scope: "owner" | "register" | "read") {
  const res = await owner.call<{ secret: string }>("POST", "/api/tokens", {
    project_id: projectId,
    name: scope,
    scope,
  });
  expect(res.status).toBe(201);
  const client = new FleetClient();
  client.bearer = res.body.secret;
  return client;
}

describe("GET /api/projects/{id}/pledges", () => {
  it("lists the project's pledges in registration order with id, swearer, state, expiry and registration time", async () => {
    const { owner, projectId, registered } = await projectWithPledges(3);
    const viewer = await signedIn();
    await owner.call("POST", `/api/projects/${projectId}/members`, { address: viewer.address, role: "viewer" });
    for (const client of [owner, viewer, await tokenFor(owner, projectId, "read")]) {
      const res = await list(client, projectId);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.next_cursor).toBeNull();
      expect(res.body.pledges.map((p) => p.id)).toEqual(registered.map((p) => p.id));
      const [first] = res.body.pledges;
      const [sent] = registered;
      expect(first).toEqual({
        id: sent?.id,
        swearer: sent?.swearer.address,
        state: "pending",
        expires_at: sent?.expiresAt,
        registered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    }
  });

  it("an empty project answers an empty list", async () => {
    const { owner, projectId } = await ownerWithProject();
    const res = await list(owner, projectId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, pledges: [], next_cursor: null });
  });

  it("refuses anyone outside the project as every project list does: 404 not_found, anonymous 401", async () => {
    const { projectId } = await projectWithPledges(1);
    const stranger = await signedIn();
    const outsider = await list(stranger, projectId);
    expect([outsider.status, outsider.body.reason]).toEqual([404, "not_found"]);
    const anonymous = await list(new FleetClient(), projectId);
    expect([anonymous.status, anonymous.body.reason]).toEqual([401, "unauthenticated"]);
  });

  it("a token of another project is refused (404 not_found) and sees none of this project's pledges", async () => {
    const { projectId } = await projectWithPledges(1);
    const other = await ownerWithProject("other");
    const otherToken = await tokenFor(other.owner, other.projectId, "owner");
    const refused = await list(otherToken, projectId);
    expect([refused.status, refused.body.reason]).toEqual([404, "not_found"]);
    const own = await list(otherToken, other.projectId);
    expect([own.status, own.body.pledges]).toEqual([200, []]);
  });

  it("?state= keeps the pledges in that state", async () => {
    const { owner, projectId, counterparty, registered } = await projectWithPledges(3);
    const [kept, abandoned, pending] = registered as [Registered, Registered, Registered];
    const outcome = await keptOutcome(kept.id, counterparty);
    expect(
      (await owner.call("POST", "/api/pledge-outcomes", { project_id: projectId, envelope: outcome.envelope })).status,
    ).toBe(201);
    const abandonment = await createAbandonmentEnvelope(
      { pledge_id: abandoned.id, abandoned_at: isoSeconds(Date.now()), reason: "changed plans" },
      abandoned.swearer,
    );
    expect(
      (await owner.call("POST", "/api/pledge-abandonments", { project_id: projectId, envelope: abandonment.envelope }))
        .status,
    ).toBe(201);

    const all = await list(owner, projectId);
    expect(all.body.pledges.map((p) => [p.id, p.state])).toEqual([
      [kept.id, "kept"],
      [abandoned.id, "abandoned"],
      [pending.id, "pending"],
    ]);
    for (const [state, ids] of [
      ["pending", [pending.id]],
      ["kept", [kept.id]],
      ["abandoned", [abandoned.id]],
      ["broken", []],
      ["expired_unresolved", []],
    ] as const) {
      const res = await list(owner, projectId, `?state=${state}`);
      expect(res.status, state).toBe(200);
      expect(
        res.body.pledges.map((p) => p.id),
        state,
      ).toEqual(ids);
    }
  });

  it("refuses a state it does not know, and any other bad query, with 400 invalid_query; a bad id with invalid_id", async () => {
    const { owner, projectId } = await projectWithPledges(1);
    for (const query of [
      "?state=resolved",
      "?state=KEPT",
      "?state=",
      "?status=kept",
      "?limit=0",
      "?limit=101",
      "?cursor=not-ours",
    ]) {
      const res = await list(owner, projectId, query);
      expect([res.status, res.body.reason], query).toEqual([400, "invalid_query"]);
    }
    const badId = await owner.call("GET", "/api/projects/proj_nothex/pledges");
    expect([badId.status, badId.body.reason]).toEqual([400, "invalid_id"]);
  });

  it("pages by cursor: limit rows a page, next_cursor until the last page, the same order as one page", async () => {
    const { owner, projectId, registered } = await projectWithPledges(5);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await list(owner, projectId, query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      sizes.push(res.body.pledges.length);
      seen.push(...res.body.pledges.map((p) => p.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual(registered.map((p) => p.id));
    // The cursor and the filter together: the second pending pledge onwards.
    const first = await list(owner, projectId, "?state=pending&limit=1");
    const rest = await list(owner, projectId, `?state=pending&cursor=${first.body.next_cursor}`);
    expect(rest.body.pledges.map((p) => p.id)).toEqual(registered.slice(1).map((p) => p.id));
  });

  it("is described in the OpenAPI document with its state filter and error reasons", async () => {
    const doc = (
      await new FleetClient().call<{ paths: Record<string, Record<string, unknown>> }>("GET", "/api/openapi")
    ).body;
    const op = doc.paths["/api/projects/{id}/pledges"]?.get as {
      parameters: { name: string; in: string; schema: { enum?: string[] } }[];
      responses: Record<string, unknown>;
    };
    expect(op).toBeDefined();
    const state = op.parameters.find((p) => p.name === "state" && p.in === "query");
    expect(state?.schema.enum).toEqual(["pending", "kept", "broken", "disputed", "expired_unresolved", "abandoned"]);
    expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "401", "404"]);
  });
});
