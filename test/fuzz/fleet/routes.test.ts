// Every JSON-body route of the fleet registry, from its /api/openapi, fuzzed as the owner of a project, alternately
// with the session cookie and a project API token (a transfer never names the real project, a token patch never the
// bearer's token, so no route starves the next). Envelope fields get real signed envelopes for the session address, as sent and
// with one field broken, so the registration paths run to the signature check and the insert. Never 5xx;
// refusals are table reasons; refused writes store nothing (see route-fuzz.ts).
import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { action, delegation, pledge, revocation } from "../../helpers/envelopes";
import { FLEET, type FleetClient, signedIn } from "../../helpers/fleet";
import { newWallet } from "../../helpers/wallet";
import { hex64, mutated } from "../arbitraries";
import { type BodyRoute, bodies, bodyRoutes, fillPath, sendAndCheck } from "../route-fuzz";

const routes = await bodyRoutes(FLEET);

interface Fixture {
  owner: FleetClient;
  projectId: string;
  token: string;
  ids: Record<string, string>;
  envelopes: Record<string, unknown>[];
}

/** A project with two tokens, a member, a webhook endpoint, a registered delegation, and unregistered envelopes. */
async function fixture(): Promise<Fixture> {
  const principal = newWallet();
  const agent = newWallet();
  const owner = await signedIn(principal.address);
  const created = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "fuzz" });
  const ownProject = created.body.project.id;
  const token = await owner.call<{ token: { id: string }; secret: string }>("POST", "/api/tokens", {
    project_id: ownProject,
    name: "fuzz",
  });
  // A second token is the one PATCH /api/tokens/{id} gets to rename or revoke: the bearer used stays valid.
  const target = await owner.call<{ token: { id: string } }>("POST", "/api/tokens", {
    project_id: ownProject,
    name: "target",
  });
  const member = await owner.call<{ member: { id: string } }>("POST", "/api/members", {
    project_id: ownProject,
    address: newWallet().address,
    role: "viewer",
  });
  const endpoint = await owner.call<{ endpoint: { id: string } }>("POST", "/api/webhooks/endpoints", {
    project_id: ownProject,
    url: `${env.TEST_RECEIVER}/ok/fuzz`,
  });
  const granted = await delegation(principal, agent);
  const registered = await owner.call("POST", "/api/delegations", {
    project_id: ownProject,
    envelope: granted.envelope,
  });
  expect(registered.status).toBe(201);
  const envelopes = [
    (await delegation(principal, agent)).envelope,
    (await action(granted.id, agent)).envelope,
    (await action(granted.id, agent)).envelope,
    (await revocation(granted.id, principal)).envelope,
    (await pledge(principal, newWallet())).envelope,
  ] as unknown as Record<string, unknown>[];
  return {
    owner,
    projectId: ownProject,
    token: token.body.secret,
    ids: {
      projects: ownProject,
      tokens: target.body.token.id,
      members: member.body.member?.id ?? "mem_000000000000000000000000",
      endpoints: endpoint.body.endpoint?.id ?? "whe_000000000000000000000000",
    },
    envelopes,
  };
}

/** The id a `{id}` of this path names: the fixture's record of the collection the path is under. */
function pathId(route: BodyRoute, f: Fixture): fc.Arbitrary<string> {
  const collection = Object.keys(f.ids).find((key) => route.path.includes(`/${key}/{id}`));
  const real = collection ? fc.constant(f.ids[collection] as string) : hex64;
  // A transfer away would only take the project from the owner: its {id} is never the real one.
  return route.path.endsWith("/transfer") ? hex64.map((h) => `proj_${h.slice(0, 24)}`) : fc.oneof(real, hex64);
}

let f: Fixture;
beforeAll(async () => {
  f = await fixture();
}, 60_000);

describe("fleet JSON bodies", () => {
  it("the description lists the body routes (enumeration works)", () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        "POST /api/delegations",
        "POST /api/actions",
        "POST /api/pledges",
        "PATCH /api/tokens/{id}",
      ]),
    );
  });

  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      const envelope = fc.oneof(fc.constantFrom(...f.envelopes), mutated(fc.constantFrom(...f.envelopes)));
      const overrides = {
        project_id: fc.oneof(
          { weight: 4, arbitrary: fc.constant(f.projectId) },
          hex64.map((h) => `proj_${h.slice(0, 24)}`),
        ),
        envelope,
      };
      await fc.assert(
        fc.asyncProperty(bodies(route.schema, overrides), pathId(route, f), fc.boolean(), async (body, id, bearer) => {
          const auth: Record<string, string> = bearer
            ? { authorization: `Bearer ${f.token}` }
            : { cookie: `oc_session=${f.owner.cookie}`, "sec-fetch-site": "same-origin" };
          await sendAndCheck(FLEET, { method: route.method, path: fillPath(route.path, () => id) }, body, auth);
        }),
        { numRuns: 15 },
      );
    }, 60_000);
  }

  it("refuses a body that repeats a key, so no reader can see a different envelope than the validator (regression)", async () => {
    const principal = newWallet();
    const agent = newWallet();
    const owner = await signedIn(principal.address);
    const project = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "dup" });
    const projectId = project.body.project.id;
    const granted = await delegation(principal, agent);
    const text = `{"project_id":"${projectId}","envelope":{"forged":true},"envelope":${JSON.stringify(granted.envelope)}}`;
    const res = await owner.fetch("/api/delegations", {
      method: "POST",
      body: text,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { reason: string }).reason).toBe("duplicate_json_key");
    const row = await env.DB.prepare("SELECT body FROM envelopes WHERE project_id = ? AND id = ?")
      .bind(projectId, granted.id)
      .first<{ body: string }>();
    expect(row).toBeNull();
  });
});
