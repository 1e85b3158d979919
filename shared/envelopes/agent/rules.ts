// The relationship rules of the registration routes (service-spec rules 3–5, 8; oc-wire-formats §3.9–3.11):
// pure checks of a parsed envelope against the stored one it cites, with `now` (epoch ms) passed in.
import { type AgentCheck, refuse, UNMAPPED_CODE_REASON } from "./codes";
import type { ParsedAction, ParsedDelegation, ParsedGrant, ParsedRevocation, ParsedSubdelegation } from "./envelope";
import { millis } from "./fields";
import { isGrantedBy } from "./sub-scope";

/** Stored status; DECISIONS 18: past expires_at reads as expired whatever the row says. */
export type GrantStatus = "active" | "revoked" | "expired";

/** Sub-delegations allowed below a root delegation (§3.10 default cap). */
export const MAX_SUBDELEGATION_DEPTH = 5;

const OK: AgentCheck = { ok: true };

function inactive(
  reason: "delegation_inactive" | "parent_inactive",
  grant: ParsedGrant,
  status: GrantStatus,
  now: number,
) {
  if (status === "revoked") return refuse(reason, "E_REVOKED", `${grant.id} is revoked`);
  if (status === "expired" || now >= millis(grant.envelope.expires_at)) {
    return refuse(reason, "E_EXPIRED", `${grant.id} expired at ${grant.envelope.expires_at}`);
  }
  return null;
}

/**
 * Rule 3 and §3.14 steps 9–12, in agent-core's order: cited id, signer = the grant's agent, signed_at inside
 * [issued_at, expires_at), scope granted; then the grant must be active now.
 */
export function checkAction(
  action: ParsedAction,
  grant: ParsedGrant,
  ctx: { status: GrantStatus; now: number },
): AgentCheck {
  const a = action.envelope;
  const g = grant.envelope;
  if (a.delegation_id !== grant.id)
    return refuse("delegation_not_found", "E_DELEGATION_MISMATCH", `action cites ${a.delegation_id}`);
  if (a.signer.address !== g.agent.address) {
    return refuse(
      "agent_must_match_delegation",
      "E_AGENT_MISMATCH",
      `signer ${a.signer.address} is not the agent ${g.agent.address}`,
    );
  }
  const signed = millis(a.signed_at);
  if (signed < millis(g.issued_at) || signed >= millis(g.expires_at)) {
    const detail = `signed_at ${a.signed_at} is outside [${g.issued_at}, ${g.expires_at})`;
    return refuse("delegation_inactive", "E_OUT_OF_WINDOW", detail);
  }
  if (!isGrantedBy(a.scope_exercised, g.scopes)) {
    const detail = `${a.scope_exercised} is not a sub-scope of any granted scope`;
    return refuse(UNMAPPED_CODE_REASON.E_SCOPE_DENIED, "E_SCOPE_DENIED", detail);
  }
  return inactive("delegation_inactive", grant, ctx.status, ctx.now) ?? OK;
}

/**
 * Rule 5 and §3.10, in the reference order: depth cap first, linkage, window and scope narrowing, then the parent
 * must be active. `parentDepth` is the number of sub-delegations from the root to the parent (0: the parent is
 * the root). A federation sub-principal never gets here: parseAgentEnvelope refuses it.
 */
export function checkSubdelegation(
  sub: ParsedSubdelegation,
  parent: ParsedGrant,
  ctx: { parentStatus: GrantStatus; parentDepth: number; now: number },
): AgentCheck {
  const s = sub.envelope;
  const p = parent.envelope;
  if (ctx.parentDepth + 1 > MAX_SUBDELEGATION_DEPTH) {
    const detail = `depth ${ctx.parentDepth + 1} exceeds ${MAX_SUBDELEGATION_DEPTH}`;
    return refuse(UNMAPPED_CODE_REASON.E_SUBDELEGATION_DEPTH_EXCEEDED, "E_SUBDELEGATION_DEPTH_EXCEEDED", detail);
  }
  if (s.parent_id !== parent.id)
    return refuse("parent_not_found", "E_SUBDELEGATION_PRINCIPAL_MISMATCH", `cites ${s.parent_id}`);
  if (s.principal.address !== p.agent.address) {
    const detail = `principal ${s.principal.address} is not the parent's agent ${p.agent.address}`;
    return refuse("principal_must_be_parent_agent", "E_SUBDELEGATION_PRINCIPAL_MISMATCH", detail);
  }
  if (millis(s.issued_at) < millis(p.issued_at) || millis(s.expires_at) > millis(p.expires_at)) {
    const detail = `window [${s.issued_at}, ${s.expires_at}) is not inside the parent's [${p.issued_at}, ${p.expires_at})`;
    return refuse(UNMAPPED_CODE_REASON.E_SUBDELEGATION_EXPIRES_EXTENDED, "E_SUBDELEGATION_EXPIRES_EXTENDED", detail);
  }
  const escalated = s.scopes.find((scope) => !isGrantedBy(scope, p.scopes));
  if (escalated !== undefined) {
    const detail = `${escalated} is not a sub-scope of any parent scope`;
    return refuse(UNMAPPED_CODE_REASON.E_SUBDELEGATION_SCOPE_ESCALATED, "E_SUBDELEGATION_SCOPE_ESCALATED", detail);
  }
  return inactive("parent_inactive", parent, ctx.parentStatus, ctx.now) ?? OK;
}

/** Who may revoke: the principal always, the agent too when `revocation.holders` lists it (§3.11). */
export function revocationHolders(target: ParsedGrant): string[] {
  const holders = target.envelope.revocation?.holders ?? ["principal"];
  return holders.includes("agent") ? [target.signer, target.envelope.agent.address] : [target.signer];
}

/** The addresses a session may be for this signer: a federation's signing guardians (DECISIONS 28), else itself. */
function sessionAddresses(parsed: ParsedDelegation | ParsedRevocation): string[] {
  return parsed.federation ? parsed.federation.signatures.map((s) => s.guardian_address) : [parsed.signer];
}

/** Rule 4: target cited, signer a holder, signer = session, target not already revoked. */
export function checkRevocation(
  revocation: ParsedRevocation,
  target: ParsedGrant,
  ctx: { targetStatus: GrantStatus; sessionAddress: string },
): AgentCheck {
  const r = revocation.envelope;
  if (r.delegation_id !== target.id)
    return refuse("delegation_not_found", "E_DELEGATION_MISMATCH", `revocation cites ${r.delegation_id}`);
  if (!revocationHolders(target).includes(revocation.signer)) {
    return refuse(
      "signer_must_be_principal",
      "E_REVOKER_UNAUTHORIZED",
      `${revocation.signer} is not a revocation holder of ${target.id}`,
    );
  }
  if (!sessionAddresses(revocation).includes(ctx.sessionAddress)) {
    return refuse(
      "signer_must_match_session",
      null,
      `signed by ${revocation.signer}, session is ${ctx.sessionAddress}`,
    );
  }
  if (ctx.targetStatus === "revoked") return refuse("already_revoked", null, `${target.id} is already revoked`);
  return OK;
}

/** Rule 8 (DECISIONS 28): the principal is the session address; for a federation, one of its signing guardians. */
export function checkDelegationSession(delegation: ParsedDelegation, sessionAddress: string): AgentCheck {
  if (sessionAddresses(delegation).includes(sessionAddress)) return OK;
  return refuse("principal_must_match_session", null, `principal ${delegation.signer}, session ${sessionAddress}`);
}

/** Ids of every sub-delegation below `targetId` (the cascade of a revocation, §3.11), nearest first. */
export function cascade(targetId: string, subdelegations: readonly { id: string; parent_id: string }[]): string[] {
  const children = new Map<string, string[]>();
  for (const { id, parent_id } of subdelegations) children.set(parent_id, [...(children.get(parent_id) ?? []), id]);
  const seen = new Set([targetId]);
  const out: string[] = [];
  for (let i = -1; i < out.length; i++) {
    for (const child of children.get(i < 0 ? targetId : (out[i] as string)) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
    }
  }
  return out;
}
