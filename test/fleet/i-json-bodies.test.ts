// Security review items 7 and 14 at the route: a signed envelope with a repeated name inside it, a body with two
// `envelope` members, or a string with a lone surrogate is refused 400 with its reason, and nothing is stored.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { delegation } from "../helpers/envelopes";
import { signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

async function setup() {
  const principal = newWallet();
  const owner = await signedIn(principal.address);
  const res = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "i-json" });
  return { principal, owner, projectId: res.body.project.id };
}

async function postRaw(owner: Awaited<ReturnType<typeof signedIn>>, path: string, text: string) {
  const res = await owner.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: text });
  return { status: res.status, body: (await res.json()) as { reason?: string } };
}

const stored = async (projectId: string) =>
  (
    await (
      await registryDb(projectId)
    )
      .prepare("SELECT count(*) AS n FROM envelopes WHERE project_id = ?")
      .bind(projectId)
      .first<{ n: number }>()
  )?.n;

describe("I-JSON bodies at the fleet", () => {
  it("attack: a signed envelope with a name repeated inside it is refused, nothing stored", async () => {
    const { principal, owner, projectId } = await setup();
    const d = await delegation(principal, newWallet("p2tr"));
    const text = JSON.stringify({ project_id: projectId, envelope: d.envelope });
    // The same member twice inside the envelope: JSON.parse keeps the last, the stored bytes would hold both.
    const doubled = text.replace('"kind":', '"kind":"agent-delegation","kind":');
    const res = await postRaw(owner, "/api/delegations", doubled);
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe("duplicate_json_key");
    expect(await stored(projectId)).toBe(0);
  });

  it("attack: two envelope members in one body are refused (the first would be stored unchecked)", async () => {
    const { principal, owner, projectId } = await setup();
    const real = await delegation(principal, newWallet("p2tr"));
    const text = `{"project_id":"${projectId}","envelope":{"forged":true},"envelope":${JSON.stringify(real.envelope)}}`;
    const res = await postRaw(owner, "/api/delegations", text);
    expect(res.body.reason).toBe("duplicate_json_key");
    expect(await stored(projectId)).toBe(0);
  });

  it("attack: a lone surrogate in an envelope string is refused (it would share a canonical form)", async () => {
    const { owner, projectId } = await setup();
    const text = `{"project_id":"${projectId}","envelope":{"kind":"agent-delegation","note":"\\ud800x"}}`;
    const res = await postRaw(owner, "/api/delegations", text);
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe("json_lone_surrogate");
  });

  it("every JSON route refuses before it reads the body, even unauthenticated (the shared jsonBody gate)", async () => {
    const signin = await SELF.fetch("http://localhost:8788/api/projects", {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
      body: '{"name":"a","name":"b"}',
    });
    expect(((await signin.json()) as { reason: string }).reason).toBe("duplicate_json_key");
  });
});
