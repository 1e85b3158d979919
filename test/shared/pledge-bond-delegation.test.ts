// The bond decision tree (PLG SPEC §8) code by code, and the agent path of a pledge (SPEC §7.3): the delegation
// must bind swearer → agent, outlive sworn_at and grant pledge:create with constraints the pledge meets.
import { describe, expect, it } from "vitest";
import {
  checkPledgeDelegation,
  type DelegationRecord,
  type PledgeEnvelope,
  type ResolvedBond,
  scopeGrantsPledge,
  verifyBond,
} from "../../shared/envelopes/pledge";
import v08 from "../vectors/oc-pledge/v08-pledge-agent-delegated.json";

const SWEARER = "bc1qalice000000000000000000000000000000000";
const BOND = { min_sats: 500000, min_days: 180 };
const GOOD: ResolvedBond = { sats_bonded: 600000, days_unspent: 200, address: SWEARER };

describe("verifyBond", () => {
  const bond = (attestation: ResolvedBond | null, atBlock?: number) =>
    verifyBond({ bond: BOND, swearer: SWEARER, attestation, atBlock });

  it("meets both thresholds (equal counts)", () => {
    expect(bond(GOOD)).toEqual({ ok: true, code: null, sats_bonded: 600000, days_unspent: 200 });
    expect(bond({ ...GOOD, sats_bonded: 500000, days_unspent: 180 }).ok).toBe(true);
  });

  it.each<[string, ResolvedBond | null, string]>([
    ["no attestation", null, "E_BOND_NOT_FOUND"],
    ["someone else's attestation", { ...GOOD, address: "bc1qbob" }, "E_BOND_ADDRESS_MISMATCH"],
    ["a spent UTXO", { ...GOOD, spent_at_block: 919900 }, "E_BOND_SPENT"],
    ["too few sats", { ...GOOD, sats_bonded: 499999 }, "E_BOND_INSUFFICIENT_SATS"],
    ["too few days", { ...GOOD, days_unspent: 179 }, "E_BOND_INSUFFICIENT_DAYS"],
  ])("%s → %s", (_name, attestation, code) => {
    expect(bond(attestation)).toMatchObject({ ok: false, code });
  });

  it("a spend after the evaluation block does not count yet; at it, it does", () => {
    expect(bond({ ...GOOD, spent_at_block: 920001 }, 920000).ok).toBe(true);
    expect(bond({ ...GOOD, spent_at_block: 920000 }, 920000)).toMatchObject({ code: "E_BOND_SPENT" });
  });
});

describe("checkPledgeDelegation", () => {
  const pledge = v08.expected.envelope as unknown as PledgeEnvelope;
  const delegation = (change: Partial<DelegationRecord> = {}): DelegationRecord => ({
    principal_address: v08.inputs.swearer,
    agent_address: v08.inputs.agent_address,
    scopes: ["pledge:create"],
    expires_at: "2026-05-08T00:00:00Z",
    status: "active",
    ...change,
  });

  it("an active delegation granting pledge:create to this agent", () => {
    expect(checkPledgeDelegation(pledge, delegation())).toEqual({ ok: true });
  });

  it("another principal or agent → agent_must_match_delegation", () => {
    expect(checkPledgeDelegation(pledge, delegation({ principal_address: "bc1qother" }))).toMatchObject({
      reason: "agent_must_match_delegation",
    });
    expect(checkPledgeDelegation(pledge, delegation({ agent_address: "bc1qother" }))).toMatchObject({
      reason: "agent_must_match_delegation",
    });
  });

  it("revoked, or expiring before sworn_at → delegation_inactive", () => {
    expect(checkPledgeDelegation(pledge, delegation({ status: "revoked" }))).toMatchObject({
      reason: "delegation_inactive",
    });
    expect(checkPledgeDelegation(pledge, delegation({ expires_at: pledge.sworn_at }))).toMatchObject({
      reason: "delegation_inactive",
      code: "E_DELEGATION_EXPIRED",
    });
  });

  it("no scope granting the pledge → delegation_scope_violated", () => {
    const scopes = ["stamp:sign(mime=text/plain)", "pledge:create(max_bond_sats=999999)"];
    expect(checkPledgeDelegation(pledge, delegation({ scopes }))).toMatchObject({
      reason: "delegation_scope_violated",
      code: "E_DELEGATION_SCOPE_VIOLATED",
    });
  });

  it.each<[string, boolean]>([
    ["pledge:create", true],
    ["pledge:create()", true],
    ["pledge:create(max_bond_sats=1000000)", true],
    ["pledge:create(max_bond_sats<=1000000)", true],
    ["pledge:create(max_bond_sats=999999)", false],
    ["pledge:create(mechanism=chain_state)", true],
    ["pledge:create(mechanism=http_get_hash)", false],
    ["pledge:create(max_bond_sats=2000000,mechanism=chain_state)", true],
    ["pledge:create(counterparty=bc1qbob)", false],
    ["pledge:create(color=orange)", false],
    ["pledge:created", false],
    ["stamp:sign", false],
  ])("scope %s grants v08: %s", (scope, grants) => {
    expect(scopeGrantsPledge(scope, pledge)).toBe(grants);
  });
});
