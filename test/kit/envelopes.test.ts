// The envelope kit (fleet project): kit-built envelopes reproduce the published vectors (canonical message bytes,
// ids and envelopes; the vectors' signatures are placeholders, so a placeholder signer stands in), and kit-built
// envelopes of every kind, signed with real keys, are accepted (201) by the registry under a project API token.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { canonicalJson, type JsonValue } from "../../shared/envelopes/canonical-json";
import * as kit from "../../shared/kit/envelopes";
import { keyFromWif, newKey } from "../../shared/kit/envelopes";
import { isoSeconds } from "../../shared/time";
import { freshIp } from "../helpers/browser";
import { FLEET, signedIn } from "../helpers/fleet";
import a01 from "../vectors/oc-agent/v01-delegation-minimal.json";
import a02 from "../vectors/oc-agent/v02-delegation-with-bond.json";
import a03 from "../vectors/oc-agent/v03-action-minimal.json";
import a05 from "../vectors/oc-agent/v05-revocation-with-reason.json";
import a10 from "../vectors/oc-agent/v10-subdelegation-minimal.json";
import p01 from "../vectors/oc-pledge/v01-pledge-minimal-chain-state.json";
import p03 from "../vectors/oc-pledge/v03-pledge-counterparty-signs-bilateral.json";
import p08 from "../vectors/oc-pledge/v08-pledge-agent-delegated.json";
import p10 from "../vectors/oc-pledge/v10-pledge-block-height-resolved.json";
import p13 from "../vectors/oc-pledge/v13-outcome-kept-counterparty-signs.json";
import p17 from "../vectors/oc-pledge/v17-abandonment-counts-as-broken.json";

const placeholder = (address: string) => ({ address, sign: () => "AAAA" });
const canon = (value: unknown) => canonicalJson(value as JsonValue);

interface Vector {
  inputs: Record<string, unknown>;
  expected: { canonical_message: string; canonical_message_bytes_len: number; envelope: unknown } & Record<
    string,
    unknown
  >;
}

function expectVector(built: kit.BuiltEnvelope<unknown>, vector: Vector, idKey = "id") {
  expect(built.message).toBe(vector.expected.canonical_message);
  expect(new TextEncoder().encode(built.message).length).toBe(vector.expected.canonical_message_bytes_len);
  expect(built.id).toBe(vector.expected[idKey]);
  expect(canon(built.envelope)).toBe(canon(vector.expected.envelope));
}

describe("kit output matches the published vectors", () => {
  it("OC Agent: delegations (with and without bond), sub-delegation, action, revocation", async () => {
    for (const v of [a01, a02] as Vector[]) {
      const i = v.inputs as unknown as kit.DelegationInput & { principal: string };
      expectVector(await kit.delegation(i, placeholder(i.principal)), v);
    }
    const sub = a10.inputs;
    expectVector(await kit.subdelegation(sub, placeholder(sub.principal)), a10 as Vector);
    expectVector(await kit.action(a03.inputs, placeholder(a03.inputs.address)), a03 as Vector);
    expectVector(await kit.revocation(a05.inputs, placeholder(a05.inputs.address)), a05 as Vector);
  });

  it("OC Pledge: pledges (block, counterparty, agent-delegated), outcome, abandonment", async () => {
    for (const v of [p01, p03, p10] as Vector[]) {
      const i = v.inputs as unknown as kit.PledgeBuildInput & { swearer: string };
      expectVector(await kit.pledge(i, placeholder(i.swearer)), v, "pledge_id");
    }
    // v08: the agent signs; the vector's sig.pubkey is the swearer (oc-wire-formats discrepancy 15), the kit's the
    // agent (SPEC §3.6). Everything signed — message and id — is the same.
    const { via_delegation, agent_address, ...inputs } = p08.inputs;
    const viaAgent = await kit.pledge(inputs as kit.PledgeBuildInput, placeholder(agent_address), {
      viaDelegation: via_delegation,
    });
    expect(viaAgent.message).toBe(p08.expected.canonical_message);
    expect(viaAgent.id).toBe(p08.expected.pledge_id);
    const expected = structuredClone(p08.expected.envelope);
    expected.sig.pubkey = agent_address;
    expect(canon(viaAgent.envelope)).toBe(canon(expected));
    expectVector(
      await kit.outcome(p13.inputs as kit.OutcomeBuildInput, placeholder(p13.inputs.resolved_by)),
      p13 as Vector,
      "outcome_id",
    );
    expectVector(
      await kit.abandonment(p17.inputs, placeholder("bc1qalice000000000000000000000000000000000")),
      {
        ...p17,
        expected: p17.expected,
      } as Vector,
      "abandonment_id",
    );
  });

  it("keys: WIF round trip for each address type, testnet WIFs, refusal of junk", () => {
    for (const type of kit.KEY_TYPES) {
      const key = newKey(type);
      expect(keyFromWif(key.wif, type).address).toBe(key.address);
    }
    const test = newKey("p2tr", "testnet");
    expect(test.address).toMatch(/^tb1p/);
    expect(keyFromWif(test.wif, "p2tr")).toMatchObject({ address: test.address, network: "testnet" });
    expect(() => keyFromWif("not-a-wif")).toThrow(RangeError);
  });
});

describe("kit envelopes at the registry", () => {
  it("registers every kind with a bearer token: 201 each", async () => {
    const principal = newKey("p2wpkh");
    const agent = newKey("p2tr");
    const subAgent = newKey("p2wpkh");
    const counterparty = newKey("p2pkh");
    const owner = await signedIn(principal.address);
    const project = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "kit" });
    const projectId = project.body.project.id;
    const token = await owner.call<{ secret: string }>("POST", "/api/tokens", { project_id: projectId, name: "kit" });
    expect(token.status).toBe(201);
    const ip = freshIp();
    const options: kit.RegisterOptions = {
      fleet: FLEET,
      token: token.body.secret,
      project: projectId,
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("cf-connecting-ip", ip);
        return SELF.fetch(String(input), { ...init, headers });
      },
    };
    const register = async (built: kit.BuiltEnvelope<object>) => {
      const res = await kit.registerEnvelope(built.envelope, options);
      expect(res, JSON.stringify(res.body)).toMatchObject({ status: 201, body: { ok: true } });
      return built.id;
    };
    const scope = "stamp:sign(mime=text/markdown)";
    const delegationId = await register(await kit.delegation({ agent: agent.address, scopes: [scope] }, principal));
    await register(
      await kit.subdelegation({ parent_id: delegationId, agent: subAgent.address, scopes: [scope] }, agent),
    );
    await register(
      await kit.action({ delegation_id: delegationId, scope_exercised: scope, content: "# hello" }, agent),
    );
    const pledgeFields = (hours: number): kit.PledgeBuildInput => ({
      proposition: "I will ship the kit.",
      resolution: {
        mechanism: "counterparty_signs",
        query: `counterparty(${counterparty.address}) signs outcome over pledge_id`,
      },
      resolves_at: { time: isoSeconds(Date.now() + 30 * 60_000) },
      expires_at: isoSeconds(Date.now() + hours * 3_600_000),
      bond: { attestation_id: "1".repeat(64), min_sats: 100_000, min_days: 30 },
      counterparty: counterparty.address,
    });
    const kept = await register(await kit.pledge(pledgeFields(2), principal));
    await register(
      await kit.outcome(
        {
          pledge_id: kept,
          outcome: "kept",
          evidence: { mechanism: "counterparty_signs", result: "kept", witness: "counterparty_sig=ok" },
        },
        counterparty,
      ),
    );
    const dropped = await register(await kit.pledge(pledgeFields(3), principal));
    await register(await kit.abandonment({ pledge_id: dropped, reason: "changed plans" }, principal));
    await register(await kit.revocation({ delegation_id: delegationId, reason: "done" }, principal));
    // A refusal comes back as the registry's reason.
    const again = await kit.registerEnvelope(
      (await kit.revocation({ delegation_id: delegationId }, principal)).envelope,
      options,
    );
    expect(again).toMatchObject({ status: 409, body: { ok: false, reason: "already_revoked" } });
    expect(kit.registrationPath({ kind: "agent-delegation", principal: { alg: "federation" } })).toBe(
      "/api/delegations/federation",
    );
  });
});
