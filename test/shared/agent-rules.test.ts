// The relationship rules of the registration routes (service-spec rules 3, 4, 5, 8; §3.9–3.11): each passing case
// and each refusal once, with `now` passed in.
import { beforeAll, describe, expect, it } from "vitest";
import {
  type AgentKind,
  buildAction,
  buildDelegation,
  buildRevocation,
  buildSubdelegation,
  cascade,
  checkAction,
  checkDelegationSession,
  checkRevocation,
  checkSubdelegation,
  MAX_SUBDELEGATION_DEPTH,
  type ParsedByKind,
  parseAgentEnvelope,
  UNMAPPED_CODE_REASON,
} from "../../shared/envelopes/agent";

const PRINCIPAL = "bc1qprincipal";
const AGENT = "bc1qagent";
const SUBAGENT = "bc1qsubagent";
const sign = () => "AAAA";
const at = (iso: string) => Date.parse(iso);
const NOW = at("2026-05-02T00:00:00Z");

async function parsed<K extends AgentKind>(kind: K, json: unknown): Promise<ParsedByKind[K]> {
  const result = await parseAgentEnvelope(kind, json);
  if (!result.ok) throw new Error(result.detail);
  return result;
}

const ROOT = {
  principal: PRINCIPAL,
  agent: AGENT,
  scopes: ["ln:send(max_sats<=1000,node=03abc)", "lock:seal(recipient=alice)"],
  bond: null,
  issued_at: "2026-05-01T00:00:00Z",
  expires_at: "2026-05-08T00:00:00Z",
  nonce: "0".repeat(32),
};
const SUB = {
  parent_id: "",
  principal: AGENT,
  agent: SUBAGENT,
  scopes: ["ln:send(max_sats<=500,node=03abc)"],
  issued_at: "2026-05-01T12:00:00Z",
  expires_at: "2026-05-07T00:00:00Z",
  nonce: "1".repeat(32),
};
const ACTION = {
  address: AGENT,
  content_hash: `sha256:${"3".repeat(64)}`,
  content_length: 10,
  content_mime: "text/plain",
  signed_at: "2026-05-02T00:00:00Z",
  delegation_id: "",
  scope_exercised: "ln:send(max_sats=100,node=03abc)",
};

let root: ParsedByKind["delegation"];
let agentRevocable: ParsedByKind["delegation"];
let sub: ParsedByKind["subdelegation"];

beforeAll(async () => {
  root = await parsed("delegation", (await buildDelegation(ROOT, sign)).envelope);
  agentRevocable = await parsed(
    "delegation",
    (await buildDelegation({ ...ROOT, holders: ["principal", "agent"] }, sign)).envelope,
  );
  sub = await parsed("subdelegation", (await buildSubdelegation({ ...SUB, parent_id: root.id }, sign)).envelope);
});

const action = async (fields: Partial<typeof ACTION> = {}) =>
  parsed("action", (await buildAction({ ...ACTION, delegation_id: root.id, ...fields }, sign)).envelope);
const link = async (fields: Partial<typeof SUB> = {}) =>
  parsed("subdelegation", (await buildSubdelegation({ ...SUB, parent_id: root.id, ...fields }, sign)).envelope);
const revocation = async (address: string, delegation_id = root.id) =>
  parsed(
    "revocation",
    (await buildRevocation({ address, delegation_id, reason: "", signed_at: "2026-05-03T00:00:00Z" }, sign)).envelope,
  );

describe("checkAction (rule 3)", () => {
  const active = { status: "active" as const, now: NOW };

  it("accepts the agent exercising a granted sub-scope inside the window, against a root or a sub-delegation", async () => {
    expect(checkAction(await action(), root, active)).toEqual({ ok: true });
    const leafAction = await action({
      address: SUBAGENT,
      delegation_id: sub.id,
      scope_exercised: "ln:send(max_sats=500,node=03abc)",
    });
    expect(checkAction(leafAction, sub, active)).toEqual({ ok: true });
  });
  it("another delegation cited → delegation_not_found", async () => {
    expect(checkAction(await action({ delegation_id: "f".repeat(64) }), root, active)).toMatchObject({
      reason: "delegation_not_found",
      code: "E_DELEGATION_MISMATCH",
    });
  });
  it("signer not the agent → agent_must_match_delegation", async () => {
    expect(checkAction(await action({ address: PRINCIPAL }), root, active)).toMatchObject({
      reason: "agent_must_match_delegation",
      code: "E_AGENT_MISMATCH",
    });
  });
  it("signed before issued_at or at expires_at → delegation_inactive (E_OUT_OF_WINDOW)", async () => {
    for (const signed_at of ["2026-04-30T23:59:59Z", ROOT.expires_at]) {
      expect(checkAction(await action({ signed_at }), root, active)).toMatchObject({
        reason: "delegation_inactive",
        code: "E_OUT_OF_WINDOW",
      });
    }
  });
  it("a scope no grant admits → 403 scope_denied, E_SCOPE_DENIED", async () => {
    expect(
      checkAction(await action({ scope_exercised: "ln:send(max_sats=5000,node=03abc)" }), root, active),
    ).toMatchObject({
      reason: "scope_denied",
      code: "E_SCOPE_DENIED",
    });
  });
  it("a revoked, expired, or past-expiry delegation → delegation_inactive (DECISIONS 18)", async () => {
    const a = await action();
    expect(checkAction(a, root, { status: "revoked", now: NOW })).toMatchObject({
      reason: "delegation_inactive",
      code: "E_REVOKED",
    });
    expect(checkAction(a, root, { status: "expired", now: NOW })).toMatchObject({
      reason: "delegation_inactive",
      code: "E_EXPIRED",
    });
    expect(checkAction(a, root, { status: "active", now: at(ROOT.expires_at) })).toMatchObject({
      reason: "delegation_inactive",
      code: "E_EXPIRED",
    });
  });
});

describe("checkSubdelegation (rule 5, §3.10)", () => {
  const ctx = { parentStatus: "active" as const, parentDepth: 0, now: NOW };

  it("accepts a narrower link by the parent's agent, up to the depth cap", async () => {
    expect(checkSubdelegation(sub, root, ctx)).toEqual({ ok: true });
    expect(checkSubdelegation(sub, root, { ...ctx, parentDepth: MAX_SUBDELEGATION_DEPTH - 1 })).toEqual({ ok: true });
  });
  it("beyond the cap of 5 → E_SUBDELEGATION_DEPTH_EXCEEDED", () => {
    expect(checkSubdelegation(sub, root, { ...ctx, parentDepth: MAX_SUBDELEGATION_DEPTH })).toMatchObject({
      reason: UNMAPPED_CODE_REASON.E_SUBDELEGATION_DEPTH_EXCEEDED,
      code: "E_SUBDELEGATION_DEPTH_EXCEEDED",
    });
  });
  it("another parent cited → parent_not_found", async () => {
    expect(checkSubdelegation(await link({ parent_id: "e".repeat(64) }), root, ctx)).toMatchObject({
      reason: "parent_not_found",
    });
  });
  it("principal not the parent's agent → principal_must_be_parent_agent", async () => {
    expect(checkSubdelegation(await link({ principal: PRINCIPAL }), root, ctx)).toMatchObject({
      reason: "principal_must_be_parent_agent",
      code: "E_SUBDELEGATION_PRINCIPAL_MISMATCH",
    });
  });
  it("issued before the parent, or expiring after it → E_SUBDELEGATION_EXPIRES_EXTENDED", async () => {
    for (const window of [{ issued_at: "2026-04-30T00:00:00Z" }, { expires_at: "2026-05-09T00:00:00Z" }]) {
      expect(checkSubdelegation(await link(window), root, ctx)).toMatchObject({
        code: "E_SUBDELEGATION_EXPIRES_EXTENDED",
      });
    }
  });
  it("a widened scope → E_SUBDELEGATION_SCOPE_ESCALATED", async () => {
    expect(checkSubdelegation(await link({ scopes: ["ln:send(max_sats<=5000,node=03abc)"] }), root, ctx)).toMatchObject(
      {
        reason: UNMAPPED_CODE_REASON.E_SUBDELEGATION_SCOPE_ESCALATED,
        code: "E_SUBDELEGATION_SCOPE_ESCALATED",
      },
    );
  });
  it("a revoked or expired parent → parent_inactive", () => {
    expect(checkSubdelegation(sub, root, { ...ctx, parentStatus: "revoked" })).toMatchObject({
      reason: "parent_inactive",
    });
    expect(checkSubdelegation(sub, root, { ...ctx, now: at(ROOT.expires_at) })).toMatchObject({
      reason: "parent_inactive",
      code: "E_EXPIRED",
    });
  });
});

describe("checkRevocation (rule 4, §3.11)", () => {
  const ctx = (sessionAddress: string) => ({ targetStatus: "active" as const, sessionAddress });

  it("the principal, signed in, revokes", async () => {
    expect(checkRevocation(await revocation(PRINCIPAL), root, ctx(PRINCIPAL))).toEqual({ ok: true });
  });
  it("the agent revokes only when the holders list it", async () => {
    const byAgent = await revocation(AGENT, agentRevocable.id);
    expect(checkRevocation(byAgent, agentRevocable, ctx(AGENT))).toEqual({ ok: true });
    expect(checkRevocation(await revocation(AGENT), root, ctx(AGENT))).toMatchObject({
      reason: "signer_must_be_principal",
      code: "E_REVOKER_UNAUTHORIZED",
    });
  });
  it("a sub-delegation is revoked by its own principal, not by the root principal", async () => {
    expect(checkRevocation(await revocation(AGENT, sub.id), sub, ctx(AGENT))).toEqual({ ok: true });
    expect(checkRevocation(await revocation(PRINCIPAL, sub.id), sub, ctx(PRINCIPAL))).toMatchObject({
      reason: "signer_must_be_principal",
    });
  });
  it("signer other than the session → signer_must_match_session", async () => {
    expect(checkRevocation(await revocation(PRINCIPAL), root, ctx(AGENT))).toMatchObject({
      reason: "signer_must_match_session",
    });
  });
  it("already revoked → already_revoked", async () => {
    const check = checkRevocation(await revocation(PRINCIPAL), root, {
      targetStatus: "revoked",
      sessionAddress: PRINCIPAL,
    });
    expect(check).toMatchObject({ reason: "already_revoked" });
  });
  it("another target cited → delegation_not_found", async () => {
    expect(checkRevocation(await revocation(PRINCIPAL, sub.id), root, ctx(PRINCIPAL))).toMatchObject({
      reason: "delegation_not_found",
      code: "E_DELEGATION_MISMATCH",
    });
  });
});

describe("checkDelegationSession (rule 8)", () => {
  it("the principal must be the session address", () => {
    expect(checkDelegationSession(root, PRINCIPAL)).toEqual({ ok: true });
    expect(checkDelegationSession(root, AGENT)).toMatchObject({ reason: "principal_must_match_session" });
  });
});

describe("cascade", () => {
  it("lists every descendant once, nearest first, and ignores other trees and cycles", () => {
    const rows = [
      { id: "b", parent_id: "a" },
      { id: "c", parent_id: "a" },
      { id: "d", parent_id: "b" },
      { id: "e", parent_id: "d" },
      { id: "x", parent_id: "other" },
      { id: "a", parent_id: "e" },
    ];
    expect(cascade("a", rows)).toEqual(["b", "c", "d", "e"]);
    expect(cascade("d", rows)).toEqual(["e", "a", "b", "c"]);
    expect(cascade("z", rows)).toEqual([]);
  });
});
