// The agent path of a pledge (PLG SPEC §7.3, oc-wire-formats §4.8): the cited OC Agent delegation must bind
// swearer → agent, outlive sworn_at and grant `pledge:create` with constraints the pledge satisfies.
import type { PledgeEnvelope, PledgeRefusal } from "./types";

/** The fleet's stored delegation, by the flat fields of service-spec's envelope table. */
export interface DelegationRecord {
  principal_address: string;
  agent_address: string;
  scopes: readonly string[];
  expires_at: string;
  /** Effective status (DECISIONS 18: past expires_at reads as expired). */
  status?: string;
}

export type DelegationCheck = { ok: true } | PledgeRefusal;

const PLEDGE_SCOPE = /^pledge:create(?:\((.*)\))?$/;

/**
 * Whether one scope string grants this pledge. Constraints: max_bond_sats (bond.min_sats ≤ N; `<=` read as `=`),
 * mechanism and counterparty (exact). An unknown key fails closed, as REGISTRY says (pledge-core ignores it:
 * discrepancy 20).
 */
export function scopeGrantsPledge(scope: string, pledge: PledgeEnvelope): boolean {
  const match = PLEDGE_SCOPE.exec(scope);
  if (!match) return false;
  if (match[1] === undefined || match[1] === "") return true;
  return match[1].split(",").every((constraint) => {
    const pair = /^([a-z_]+)(<=|=)(.+)$/.exec(constraint);
    if (!pair) return false;
    const [, key, op, value] = pair as unknown as [string, string, string, string];
    if (key === "max_bond_sats") return /^\d+$/.test(value) && pledge.bond.min_sats <= Number(value);
    if (op !== "=") return false;
    if (key === "mechanism") return pledge.resolution.mechanism === value;
    if (key === "counterparty") return pledge.counterparty === value;
    return false;
  });
}

/** SPEC §7.3 steps 2–5 for an agent-delegated pledge; the route resolves the delegation (404 if absent). */
export function checkPledgeDelegation(pledge: PledgeEnvelope, delegation: DelegationRecord): DelegationCheck {
  if (delegation.principal_address !== pledge.swearer.address || delegation.agent_address !== pledge.agent_address) {
    const detail = "the delegation must bind the swearer (principal) to agent_address (agent)";
    return { ok: false, reason: "agent_must_match_delegation", code: "E_DELEGATION_SCOPE_VIOLATED", detail };
  }
  if (delegation.status !== undefined && delegation.status !== "active") {
    const detail = `the delegation is ${delegation.status}`;
    return { ok: false, reason: "delegation_inactive", code: null, detail };
  }
  if (!(Date.parse(delegation.expires_at) > Date.parse(pledge.sworn_at))) {
    const detail = "the delegation expires before sworn_at";
    return { ok: false, reason: "delegation_inactive", code: "E_DELEGATION_EXPIRED", detail };
  }
  if (!delegation.scopes.some((scope) => scopeGrantsPledge(scope, pledge))) {
    const detail = "no pledge:create scope of the delegation allows this pledge";
    return { ok: false, reason: "delegation_scope_violated", code: "E_DELEGATION_SCOPE_VIOLATED", detail };
  }
  return { ok: true };
}
