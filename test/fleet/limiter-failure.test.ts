// RL-07 on the fleet: when the limiter's Durable Object fails (the platform overloaded, the object unreachable), a
// read is served and a change is refused, 429 `rate_limited` with `Retry-After: 1`, before anything is stored. A
// registration used to fail open: under overload the sustained bench saw one address admitted half again past its
// per-address rule (issue 47). The fault is injected at the binding; the app and its middleware are the real ones.
import { describe, expect, it } from "vitest";
import { action, delegation } from "../helpers/envelopes";
import { type FleetClient, signedIn } from "../helpers/fleet";
import { sessionAnswer } from "../helpers/fleet-app";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

/** A RATE_LIMITER whose every object fails each call, as an overloaded one does. */
const brokenLimiter = {
  idFromName: () => ({}),
  get: () => ({
    lease: () => Promise.reject(Object.assign(new Error("Durable Object is overloaded"), { overloaded: true })),
    take: () => Promise.reject(Object.assign(new Error("Durable Object is overloaded"), { overloaded: true })),
  }),
};

/** `client`'s request through the fleet app with the broken limiter, from an address of its own. */
async function withBrokenLimiter(client: FleetClient, method: string, path: string, body?: unknown) {
  const res = await sessionAnswer(client, method, path, body, { RATE_LIMITER: brokenLimiter });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as object };
}

describe("the fleet when its rate limiter fails", () => {
  it("refuses a registration (429, Retry-After: 1) and stores nothing; serves a read", async () => {
    const principal = newWallet();
    const agent = newWallet("p2tr");
    const owner = await signedIn(principal.address);
    const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "limiter down" });
    const projectId = created.body.project.id;
    const grant = await delegation(principal, agent);
    expect(
      (await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: grant.envelope })).status,
    ).toBe(201);

    const one = await action(grant.id, agent);
    const refused = await withBrokenLimiter(owner, "POST", "/api/actions", {
      project_id: projectId,
      envelope: one.envelope,
    });
    expect(refused).toEqual({ status: 429, retryAfter: "1", body: { ok: false, reason: "rate_limited" } });
    // The project's registry (its shard in the fleet-shards pass) holds the grant, and not the refused action.
    const { results } = await (await registryDb(projectId))
      .prepare("SELECT id FROM envelopes WHERE project_id = ?")
      .bind(projectId)
      .all<{ id: string }>();
    expect(results.map((r) => r.id)).toEqual([grant.id]);

    const read = await withBrokenLimiter(owner, "GET", `/api/projects/${projectId}`);
    expect(read.status).toBe(200);
  });

  it("refuses any other change too (a project's rename)", async () => {
    const owner = await signedIn(newWallet().address);
    const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "before" });
    const projectId = created.body.project.id;
    const renamed = await withBrokenLimiter(owner, "PATCH", `/api/projects/${projectId}`, { name: "after" });
    expect(renamed).toMatchObject({ status: 429, retryAfter: "1", body: { reason: "rate_limited" } });
    const row = await (await registryDb(projectId))
      .prepare("SELECT name FROM projects WHERE id = ?")
      .bind(projectId)
      .first<{ name: string }>();
    expect(row?.name).toBe("before");
  });
});
