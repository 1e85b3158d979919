// The OC Agent envelope JSON shapes (oc-wire-formats §3.6, §3.13) as they are after the shape check. Unknown
// top-level fields of a received envelope are kept on the object (and in its canonical JSON) but not typed here.

export type AgentKind = "delegation" | "subdelegation" | "action" | "revocation";

export const ENVELOPE_KIND = {
  delegation: "agent-delegation",
  subdelegation: "agent-subdelegation",
  action: "agent-action",
  revocation: "agent-revocation",
} as const satisfies Record<AgentKind, string>;

export interface BipActor {
  address: string;
  alg: "bip322";
}

export interface BipSignature {
  alg: "bip322";
  pubkey: string;
  value: string;
}

export interface FederationGuardian {
  address: string;
  alg: "bip322";
  name?: string;
}

export interface FederationDescriptor {
  v: 1;
  kind: "agent-federation";
  /** "M-of-N" */
  threshold: string;
  guardians: FederationGuardian[];
}

export interface FederationPrincipal {
  alg: "federation";
  descriptor_id: string;
  descriptor: FederationDescriptor;
}

export interface GuardianSignature {
  guardian_address: string;
  value: string;
}

export interface FederationSignature {
  alg: "federation-bip322";
  threshold: string;
  signatures: GuardianSignature[];
}

export interface Bond {
  sats: number;
  attestation_id: string;
}

export type RevocationHolder = "principal" | "agent";

export interface RevocationPolicy {
  holders: RevocationHolder[];
  ref: string | null;
}

export interface Ots {
  status: "pending" | "confirmed";
  proof: string;
  calendars: string[];
  block_height: number | null;
  block_hash: string | null;
  upgraded_at: string | null;
}

interface GrantFields {
  id: string;
  agent: BipActor;
  /** Canonical and sorted (private-scope envelopes never get this far: see parseAgentEnvelope). */
  scopes: string[];
  issued_at: string;
  expires_at: string;
  nonce: string;
  /** Absent means the default `{holders: ["principal"], ref: null}`. */
  revocation?: RevocationPolicy;
}

export interface DelegationEnvelope extends GrantFields {
  v: 1;
  kind: "agent-delegation";
  principal: BipActor | FederationPrincipal;
  bond: Bond | null;
  sig: BipSignature | FederationSignature;
}

export interface SubdelegationEnvelope extends GrantFields {
  v: 1;
  kind: "agent-subdelegation";
  parent_id: string;
  principal: BipActor;
  sig: BipSignature;
}

export interface ActionEnvelope {
  v: 1;
  kind: "agent-action";
  id: string;
  content: { hash: string; length: number; mime: string; ref?: string | null };
  signer: BipActor;
  signed_at: string;
  delegation_id: string;
  scope_exercised: string;
  ots?: Ots | null;
  sig: BipSignature;
}

export interface RevocationEnvelope {
  v: 1;
  kind: "agent-revocation";
  id: string;
  delegation_id: string;
  signer: BipActor | FederationPrincipal;
  reason: string;
  signed_at: string;
  ots?: Ots | null;
  sig: BipSignature | FederationSignature;
}

export interface EnvelopeByKind {
  delegation: DelegationEnvelope;
  subdelegation: SubdelegationEnvelope;
  action: ActionEnvelope;
  revocation: RevocationEnvelope;
}
