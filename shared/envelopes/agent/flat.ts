// The flat record fields the fleet stores per envelope kind (service-spec "Fleet envelopes"), and the flattened
// action body OrangeCheck's agent adapters send (DECISIONS 2), turned into a full envelope for the one parse path.
import { type AgentFailure, refuse } from "./codes";
import type { ParsedByKind, ParsedEnvelope } from "./envelope";
import { isRecord, type JsonRecord } from "./fields";
import type { AgentKind } from "./types";

export interface DelegationRecord {
  id: string;
  /** `federation:<descriptor_id>` for a federation principal. */
  principal_address: string;
  agent_address: string;
  scopes: string[];
  issued_at: string;
  expires_at: string;
}

export interface SubdelegationRecord extends DelegationRecord {
  parent_id: string;
}

export interface ActionRecord {
  id: string;
  delegation_id: string;
  agent_address: string;
  scope_exercised: string;
  content_hash: string;
  content_length: number;
  content_mime: string;
  signed_at: string;
}

export interface RevocationRecord {
  id: string;
  delegation_id: string;
  /** `federation:<descriptor_id>` for a federation revocation. */
  signer_address: string;
  reason: string;
  signed_at: string;
}

export interface RecordByKind {
  delegation: DelegationRecord;
  subdelegation: SubdelegationRecord;
  action: ActionRecord;
  revocation: RevocationRecord;
}

const FLATTEN: { [K in AgentKind]: (parsed: ParsedByKind[K]) => RecordByKind[K] } = {
  delegation: ({ id, signer, envelope: e }) => ({
    id,
    principal_address: signer,
    agent_address: e.agent.address,
    scopes: e.scopes,
    issued_at: e.issued_at,
    expires_at: e.expires_at,
  }),
  subdelegation: ({ id, signer, envelope: e }) => ({
    id,
    parent_id: e.parent_id,
    principal_address: signer,
    agent_address: e.agent.address,
    scopes: e.scopes,
    issued_at: e.issued_at,
    expires_at: e.expires_at,
  }),
  action: ({ id, envelope: e }) => ({
    id,
    delegation_id: e.delegation_id,
    agent_address: e.signer.address,
    scope_exercised: e.scope_exercised,
    content_hash: e.content.hash,
    content_length: e.content.length,
    content_mime: e.content.mime,
    signed_at: e.signed_at,
  }),
  revocation: ({ id, signer, envelope: e }) => ({
    id,
    delegation_id: e.delegation_id,
    signer_address: signer,
    reason: e.reason,
    signed_at: e.signed_at,
  }),
};

/** The stored columns of a parsed envelope (the route adds project_id, status and the received bytes). */
export function flatFields<P extends ParsedEnvelope>(parsed: P): RecordByKind[P["kind"]] {
  // TS cannot correlate the kind with its flattener across the union, hence the cast.
  const flatten = FLATTEN[parsed.kind] as unknown as (p: P) => RecordByKind[P["kind"]];
  return flatten(parsed);
}

export const FLAT_ACTION_FIELDS = [
  "delegation_id",
  "agent_address",
  "scope_exercised",
  "content_hash",
  "content_length",
  "content_mime",
  "signed_at",
  "signature",
  "id",
] as const;

type Flat = Record<(typeof FLAT_ACTION_FIELDS)[number], unknown>;

/**
 * The flattened action body as an (unvalidated) action envelope, content.ref and ots null. Only presence is checked
 * here; types and formats are parseAgentEnvelope's, so both body forms share one validation path.
 */
export function actionFromFlat(body: unknown): { ok: true; envelope: JsonRecord } | AgentFailure {
  if (!isRecord(body)) return refuse("invalid_body", "E_MALFORMED", "body must be an object");
  const missing = FLAT_ACTION_FIELDS.find((key) => body[key] === undefined);
  if (missing) return refuse("invalid_body", "E_MALFORMED", `${missing}: required`);
  const flat = body as Flat;
  const envelope: JsonRecord = {
    v: 1,
    kind: "agent-action",
    id: flat.id,
    content: { hash: flat.content_hash, length: flat.content_length, mime: flat.content_mime, ref: null },
    signer: { address: flat.agent_address, alg: "bip322" },
    signed_at: flat.signed_at,
    delegation_id: flat.delegation_id,
    scope_exercised: flat.scope_exercised,
    ots: null,
    sig: { alg: "bip322", pubkey: flat.agent_address, value: flat.signature },
  };
  return { ok: true, envelope };
}
