// Registration of OC Agent envelopes: service-spec rules 1-8 with their reasons, content addressing, revocation
// and its cascade, both action body forms, concurrency, the event outbox and the audit export's bytes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { orm } from "../../shared/db/client";
import { eventBody } from "../../workers/fleet/src/webhooks/event-body";
import { action, delegation, revocation, subdelegation } from "../helpers/envelopes";
import { type FleetClient, signedIn, subscribed } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";
import { newWallet } from "../helpers/wallet";

async function setup() {
  const principal = newWallet();
  const agent = newWallet("p2tr");
  const owner = await signedIn(principal.address);
  const res = await owner.call<{ project: { id: string } }>("POST", "/api/projects", { name: "registry" });
  return { principal, agent, owner, projectId: res.body.project.id };
}

type Registered = { status: string; id: string; principal_address?: string; agent_address?: string };

const post = (client: FleetClient, path: string, projectId: string, envelope: unknown) =>
  client.call<Record<string, Registered>>("POST", path, { project_id: projectId, envelope });

describe("delegations", () => {
  it("registers a signed delegation once; its id is the content address; a re-post is 409 already_registered", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    const first = await post(owner, "/api/delegations", projectId, d.envelope);
    expect(first.status).toBe(201);
    expect(first.body.delegation).toMatchObject({
      id: d.id,
      status: "active",
      principal_address: principal.address,
      agent_address: agent.address,
    });
    const again = await post(owner, "/api/delegations", projectId, d.envelope);
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe("already_registered");
    const rows = await (await registryDb(projectId))
      .prepare("SELECT count(*) AS n FROM envelopes WHERE id = ?")
      .bind(d.id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(1);
  });

  it("rule 1: a declared id that is not the content address is 400 id_mismatch; a bad scope canonicalization_failed", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    const wrongId = await post(owner, "/api/delegations", projectId, { ...d.envelope, id: "0".repeat(64) });
    expect(wrongId.body.reason).toBe("id_mismatch");
    const badScope = await post(owner, "/api/delegations", projectId, {
      ...d.envelope,
      scopes: ["lock:seal(recipient bc1q)"],
    });
    expect(badScope.status).toBe(400);
    expect(badScope.body.reason).toBe("canonicalization_failed");
  });

  it("verifies the BIP-322 signature server-side: undecodable 400 malformed_signature, wrong key envelope_signature_invalid", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    const garbage = await post(owner, "/api/delegations", projectId, {
      ...d.envelope,
      sig: { ...d.envelope.sig, value: "%%%" },
    });
    expect(garbage.body.reason).toBe("malformed_signature");
    const other = await post(owner, "/api/delegations", projectId, {
      ...d.envelope,
      sig: { ...d.envelope.sig, value: newWallet().sign(d.id) },
    });
    expect(other.body.reason).toBe("envelope_signature_invalid");
  });

  it("rule 8: the principal must be the session address (403 principal_must_match_session)", async () => {
    const { agent, owner, projectId } = await setup();
    const d = await delegation(newWallet(), agent);
    const res = await post(owner, "/api/delegations", projectId, d.envelope);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe("principal_must_match_session");
  });

  it("rule 6: a federation principal at /api/delegations is 400 federation_principal_wrong_endpoint", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    const envelope = { ...d.envelope, principal: { alg: "federation", descriptor_id: "a".repeat(64), descriptor: {} } };
    const res = await post(owner, "/api/delegations", projectId, {
      ...envelope,
      principal: { ...envelope.principal, address: `federation:${"a".repeat(64)}` },
    });
    expect(res.body.reason).toBe("federation_principal_wrong_endpoint");
  });

  it("50 concurrent posts of one envelope store one row: one 201 and 49 × 409", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => post(owner, "/api/delegations", projectId, d.envelope)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    // One registration: one envelope row, which is its log leaf (its index given in the same statement).
    const rows = await (await registryDb(projectId))
      .prepare("SELECT count(*) AS envelopes, count(leaf_idx) AS leaves FROM envelopes WHERE id = ?1")
      .bind(d.id)
      .first<{ envelopes: number; leaves: number }>();
    expect(rows).toEqual({ envelopes: 1, leaves: 1 });
  });
});

describe("actions", () => {
  it("rule 3: registered when signed by the delegation's agent; 403 agent_must_match_delegation otherwise; 404 for an unknown delegation", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    await post(owner, "/api/delegations", projectId, d.envelope);
    const a = await action(d.id, agent);
    const ok = await post(owner, "/api/actions", projectId, a.envelope);
    expect(ok.status).toBe(201);
    expect(ok.body.action).toMatchObject({ id: a.id, delegation_id: d.id, agent_address: agent.address });
    const wrongAgent = await action(d.id, newWallet());
    expect((await post(owner, "/api/actions", projectId, wrongAgent.envelope)).body.reason).toBe(
      "agent_must_match_delegation",
    );
    const orphan = await action("f".repeat(64), agent);
    const missing = await post(owner, "/api/actions", projectId, orphan.envelope);
    expect(missing.status).toBe(404);
    expect(missing.body.reason).toBe("delegation_not_found");
  });

  it("accepts the flat body form of the agent adapters (DECISIONS 2)", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    await post(owner, "/api/delegations", projectId, d.envelope);
    const a = await action(d.id, agent);
    const e = a.envelope;
    const res = await owner.call<Record<string, Registered>>("POST", "/api/actions", {
      project_id: projectId,
      id: e.id,
      delegation_id: e.delegation_id,
      agent_address: e.signer.address,
      scope_exercised: e.scope_exercised,
      content_hash: e.content.hash,
      content_length: e.content.length,
      content_mime: e.content.mime,
      signed_at: e.signed_at,
      signature: e.sig.value,
    });
    expect(res.status).toBe(201);
    expect(res.body.action?.id).toBe(a.id);
  });
});

describe("revocations", () => {
  it("rule 4: the principal revokes; the delegation and its sub-delegations become revoked; actions are refused at once", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    await post(owner, "/api/delegations", projectId, d.envelope);
    const subAgent = newWallet();
    const s = await subdelegation(d.id, agent, subAgent);
    expect((await post(owner, "/api/subdelegations", projectId, s.envelope)).status).toBe(201);
    const r = await revocation(d.id, principal, "rotated");
    const res = await post(owner, "/api/revocations", projectId, r.envelope);
    expect(res.status).toBe(201);
    const statuses = await (await registryDb(projectId))
      .prepare("SELECT id, status FROM envelopes WHERE id IN (?, ?)")
      .bind(d.id, s.id)
      .all<{ status: string }>();
    expect(statuses.results.map((x) => x.status)).toEqual(["revoked", "revoked"]);
    const late = await action(d.id, agent);
    const refused = await post(owner, "/api/actions", projectId, late.envelope);
    expect(refused.status).toBe(409);
    expect(refused.body.reason).toBe("delegation_inactive");
    const again = await revocation(d.id, principal, "again");
    expect((await post(owner, "/api/revocations", projectId, again.envelope)).body.reason).toBe("already_revoked");
  });

  it("refuses a revocation by the agent (signer_must_be_principal) and one the session did not sign (signer_must_match_session)", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    await post(owner, "/api/delegations", projectId, d.envelope);
    const byAgent = await revocation(d.id, agent);
    expect((await post(owner, "/api/revocations", projectId, byAgent.envelope)).body.reason).toBe(
      "signer_must_be_principal",
    );
    const member = await signedIn();
    await owner.call("POST", "/api/members", { project_id: projectId, address: member.address, role: "member" });
    const byPrincipal = await revocation(d.id, principal);
    const res = await post(member, "/api/revocations", projectId, byPrincipal.envelope);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe("signer_must_match_session");
  });
});

describe("sub-delegations", () => {
  it("rule 5: signed by the parent's agent, parent must exist and be active", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const d = await delegation(principal, agent);
    await post(owner, "/api/delegations", projectId, d.envelope);
    const notAgent = await subdelegation(d.id, newWallet(), newWallet());
    expect((await post(owner, "/api/subdelegations", projectId, notAgent.envelope)).body.reason).toBe(
      "principal_must_be_parent_agent",
    );
    const orphan = await subdelegation("e".repeat(64), agent, newWallet());
    expect((await post(owner, "/api/subdelegations", projectId, orphan.envelope)).body.reason).toBe("parent_not_found");
    await post(owner, "/api/revocations", projectId, (await revocation(d.id, principal)).envelope);
    const late = await subdelegation(d.id, agent, newWallet());
    const res = await post(owner, "/api/subdelegations", projectId, late.envelope);
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe("parent_inactive");
  });
});

describe("events and audit", () => {
  it("records one outbox event per accepted envelope, carrying the envelope's bytes as received", async () => {
    const { principal, agent, owner, projectId } = await setup();
    await subscribed(owner, projectId); // an event is kept for a project with an endpoint to deliver it to
    const d = await delegation(principal, agent);
    // Key order and spacing of the client's bytes are kept.
    const text = `{"project_id":"${projectId}", "envelope":  ${JSON.stringify(d.envelope, null, 1)}}`;
    const res = await owner.fetch("/api/delegations", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: text,
    });
    expect(res.status).toBe(201);
    const event = await (await registryDb(projectId))
      .prepare("SELECT id, event_type, payload FROM outbox WHERE envelope_id = ?")
      .bind(d.id)
      .first<{ id: string; event_type: string; payload: string }>();
    expect(event?.event_type).toBe("delegation.registered");
    // The event stores no second copy of the envelope; its delivery body embeds the stored bytes unchanged.
    expect(event?.payload).toBe("");
    const delivered = await eventBody(orm(await registryDb(projectId)), event?.id ?? "");
    expect(delivered).toBe(
      `{"id":"${d.id}","project_id":"${projectId}","kind":"agent-delegation","envelope":${JSON.stringify(d.envelope, null, 1)}}`,
    );
    // The json bundle carries the bytes exactly; ndjson keeps the row on one line (line breaks become spaces).
    const json = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=json`)).text();
    expect(json).toContain(`"envelope":${JSON.stringify(d.envelope, null, 1)}}`);
    const ndjson = await (await owner.fetch(`/api/audit/export?project_id=${projectId}`)).text();
    expect(ndjson).toContain(`"envelope":${JSON.stringify(d.envelope, null, 1).replaceAll("\n", " ")}}`);
  });
});

describe("reads", () => {
  it("lists each kind by project in registration order with a cursor, and reads a delegation by id within the caller's projects", async () => {
    const { principal, agent, owner, projectId } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const d = await delegation(principal, agent);
      ids.push(d.id);
      await post(owner, "/api/delegations", projectId, d.envelope);
    }
    type Page = { delegations: { id: string }[]; next_cursor: string | null };
    const first = await owner.call<Page>("GET", `/api/delegations?project_id=${projectId}&limit=2`);
    expect(first.body.delegations.map((d) => d.id)).toEqual(ids.slice(0, 2));
    const second = await owner.call<Page>(
      "GET",
      `/api/delegations?project_id=${projectId}&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(second.body.delegations.map((d) => d.id)).toEqual(ids.slice(2));
    expect(second.body.next_cursor).toBeNull();
    const one = await owner.call<{ delegation: { id: string; status: string } }>("GET", `/api/delegations/${ids[0]}`);
    expect(one.body.delegation).toMatchObject({ id: ids[0], status: "active" });
    const stranger = await signedIn();
    expect((await stranger.call("GET", `/api/delegations/${ids[0]}`)).status).toBe(404);
    expect((await stranger.call("GET", `/api/delegations?project_id=${projectId}`)).status).toBe(404);
    expect((await owner.call("GET", "/api/delegations/xyz")).body.reason).toBe("invalid_id");
    expect((await owner.call("GET", `/api/delegations?project_id=${projectId}&cursor=%%%`)).body.reason).toBe(
      "invalid_query",
    );
  });
});
