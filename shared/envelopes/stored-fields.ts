// The columns the fleet stores beside an envelope's bytes (service-spec "Fleet envelopes"), derived from its parse:
// one function the registration routes, the reconciler and `oc restore` share, so a row rebuilt from an audit bundle
// is the row its registration wrote. Keys are the `envelopes` table's (shared/db/schema.ts); a key left out is null.
import type { EnvelopeKind } from "../audit/bundle-format";
import { flatFields as agentFields, type ParsedEnvelope } from "./agent";
import { type ParsedPledgeEnvelope, flatFields as pledgeFields } from "./pledge";

export type StoredParse = ParsedEnvelope | ParsedPledgeEnvelope;

export interface StoredFields {
  kind: EnvelopeKind;
  /** As registered: grants `active`, pledges `pending`; a later revocation or resolution changes it in place. */
  status?: string;
  principalAddress?: string;
  agentAddress?: string | null;
  signerAddress?: string;
  parentId?: string | null;
  delegationId?: string | null;
  pledgeId?: string;
  depth?: number;
  /** JSON array. */
  scopes?: string;
  issuedAt?: string;
  expiresAt?: string;
  signedAt?: string;
  scopeExercised?: string;
  contentHash?: string;
  contentLength?: number;
  contentMime?: string;
  reason?: string;
  swearer?: string;
  outcome?: string;
}

/**
 * The stored columns of a parsed envelope. `depth` is a grant's distance from its root delegation: 0 for a
 * delegation, the parent's depth + 1 for a sub-delegation (the caller knows the parent's row).
 */
export function storedFields(parsed: StoredParse, options: { depth?: number } = {}): StoredFields {
  switch (parsed.kind) {
    case "delegation":
    case "subdelegation": {
      const flat = agentFields(parsed);
      return {
        kind: parsed.kind,
        status: "active",
        principalAddress: flat.principal_address,
        agentAddress: flat.agent_address,
        parentId: "parent_id" in flat ? flat.parent_id : null,
        scopes: JSON.stringify(flat.scopes),
        issuedAt: flat.issued_at,
        expiresAt: flat.expires_at,
        depth: options.depth ?? 0,
      };
    }
    case "action": {
      const a = agentFields(parsed);
      return {
        kind: "action",
        agentAddress: a.agent_address,
        signerAddress: a.agent_address,
        delegationId: a.delegation_id,
        scopeExercised: a.scope_exercised,
        contentHash: a.content_hash,
        contentLength: a.content_length,
        contentMime: a.content_mime,
        signedAt: a.signed_at,
      };
    }
    case "revocation": {
      const r = agentFields(parsed);
      return {
        kind: "revocation",
        signerAddress: r.signer_address,
        delegationId: r.delegation_id,
        reason: r.reason,
        signedAt: r.signed_at,
      };
    }
    case "pledge": {
      const p = pledgeFields(parsed);
      return {
        kind: "pledge",
        status: "pending",
        swearer: p.swearer,
        agentAddress: p.agent_address,
        delegationId: p.via_delegation,
        issuedAt: p.sworn_at,
        expiresAt: p.expires_at,
      };
    }
    case "pledge-outcome": {
      const o = pledgeFields(parsed);
      return {
        kind: "outcome",
        pledgeId: o.pledge_id,
        outcome: o.outcome,
        signerAddress: o.resolved_by,
        signedAt: o.resolved_at,
      };
    }
    case "pledge-abandonment": {
      const a = pledgeFields(parsed);
      return {
        kind: "abandonment",
        pledgeId: a.pledge_id,
        signerAddress: a.signer_address,
        reason: a.reason,
        signedAt: a.abandoned_at,
      };
    }
  }
}
