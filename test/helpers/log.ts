// A project with a log to read: its owner registers a delegation and `actions` actions through the API (each 201);
// `register` adds one more action. `integrateLog` runs the project's log integrator now, as its alarm would within
// a second (docs/log.md), so a test reads a checkpoint that covers what it registered.
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { action, delegation } from "./envelopes";
import { signedIn } from "./fleet";
import { newWallet } from "./wallet";

export async function loggedProject(actions: number) {
  const principal = newWallet();
  const agent = newWallet("p2tr");
  const owner = await signedIn(principal.address);
  const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "log" });
  const projectId = created.body.project.id;
  const grant = await delegation(principal, agent);
  expect(
    (await owner.call("POST", "/api/delegations", { project_id: projectId, envelope: grant.envelope })).status,
  ).toBe(201);
  const register = async () => {
    const one = await action(grant.id, agent);
    expect((await owner.call("POST", "/api/actions", { project_id: projectId, envelope: one.envelope })).status).toBe(
      201,
    );
  };
  for (let i = 0; i < actions; i++) await register();
  return { owner, projectId, register };
}

/** Integrates every waiting leaf of the project's log now (the integrator's alarm does it within a second). */
export function integrateLog(projectId: string) {
  return env.LOG_INTEGRATOR.get(env.LOG_INTEGRATOR.idFromName(projectId)).integrateNow(projectId);
}
