// Building signed OC Agent envelopes, the producer side of §3.2–3.6 and §3.13: canonical message, id, then the
// caller's signature(s) over the hex id. Field names follow the vectors' `inputs`. For scripts and fixtures.
import {
  type ActionFields,
  canonicalMessage,
  type DelegationFields,
  envelopeId,
  type MessageFields,
  type RevocationFields,
  type SubdelegationFields,
} from "./canonical";
import { descriptorId, FEDERATION_PREFIX } from "./federation";
import { canonicalizeScopes } from "./scope";
import type {
  ActionEnvelope,
  AgentKind,
  DelegationEnvelope,
  FederationDescriptor,
  FederationPrincipal,
  FederationSignature,
  Ots,
  RevocationEnvelope,
  RevocationHolder,
  SubdelegationEnvelope,
} from "./types";

/** Returns the BIP-322 signature (base64) of the 64-char hex id. */
export type Sign = (idHex: string) => string | Promise<string>;

export interface Guardian {
  address: string;
  sign: Sign;
}

export interface Built<E> {
  envelope: E;
  id: string;
  message: string;
}

export interface RevocationOptions {
  holders?: RevocationHolder[];
  ref?: string | null;
}

async function identify<K extends AgentKind>(kind: K, fields: MessageFields[K]) {
  const message = canonicalMessage(kind, fields);
  return { message, id: await envelopeId(message) };
}

// canonicalMessage already refused bad grammar, so this cannot fail here.
function sortedScopes(scopes: readonly string[]): string[] {
  const canonical = canonicalizeScopes(scopes);
  return canonical.ok ? canonical.scopes : [];
}

async function federationParts(descriptor: FederationDescriptor, guardians: readonly Guardian[]) {
  const principal: FederationPrincipal = {
    alg: "federation",
    descriptor_id: await descriptorId(descriptor),
    descriptor,
  };
  const sign = async (idHex: string): Promise<FederationSignature> => ({
    alg: "federation-bip322",
    threshold: descriptor.threshold,
    signatures: await Promise.all(
      guardians.map(async (g) => ({ guardian_address: g.address, value: await g.sign(idHex) })),
    ),
  });
  return { principal, address: `${FEDERATION_PREFIX}${principal.descriptor_id}`, sign };
}

export async function buildDelegation(
  fields: DelegationFields & RevocationOptions,
  sign: Sign,
): Promise<Built<DelegationEnvelope>> {
  const { message, id } = await identify("delegation", fields);
  const envelope: DelegationEnvelope = {
    v: 1,
    kind: "agent-delegation",
    id,
    principal: { address: fields.principal, alg: "bip322" },
    agent: { address: fields.agent, alg: "bip322" },
    scopes: sortedScopes(fields.scopes),
    bond: fields.bond,
    issued_at: fields.issued_at,
    expires_at: fields.expires_at,
    nonce: fields.nonce,
    revocation: { holders: fields.holders ?? ["principal"], ref: fields.ref ?? null },
    sig: { alg: "bip322", pubkey: fields.principal, value: await sign(id) },
  };
  return { envelope, id, message };
}

export async function buildFederationDelegation(
  fields: Omit<DelegationFields, "principal"> & RevocationOptions & { descriptor: FederationDescriptor },
  guardians: readonly Guardian[],
): Promise<Built<DelegationEnvelope>> {
  const parts = await federationParts(fields.descriptor, guardians);
  const built = await buildDelegation({ ...fields, principal: parts.address }, () => "");
  const envelope: DelegationEnvelope = {
    ...built.envelope,
    principal: parts.principal,
    sig: await parts.sign(built.id),
  };
  return { envelope, id: built.id, message: built.message };
}

export async function buildSubdelegation(
  fields: SubdelegationFields & RevocationOptions,
  sign: Sign,
): Promise<Built<SubdelegationEnvelope>> {
  const { message, id } = await identify("subdelegation", fields);
  const envelope: SubdelegationEnvelope = {
    v: 1,
    kind: "agent-subdelegation",
    id,
    parent_id: fields.parent_id,
    principal: { address: fields.principal, alg: "bip322" },
    agent: { address: fields.agent, alg: "bip322" },
    scopes: sortedScopes(fields.scopes),
    issued_at: fields.issued_at,
    expires_at: fields.expires_at,
    nonce: fields.nonce,
    revocation: { holders: fields.holders ?? ["principal"], ref: fields.ref ?? null },
    sig: { alg: "bip322", pubkey: fields.principal, value: await sign(id) },
  };
  return { envelope, id, message };
}

export async function buildAction(
  fields: ActionFields & { content_ref?: string | null; ots?: Ots | null },
  sign: Sign,
): Promise<Built<ActionEnvelope>> {
  const { message, id } = await identify("action", fields);
  const envelope: ActionEnvelope = {
    v: 1,
    kind: "agent-action",
    id,
    content: {
      hash: fields.content_hash,
      length: fields.content_length,
      mime: fields.content_mime,
      ref: fields.content_ref ?? null,
    },
    signer: { address: fields.address, alg: "bip322" },
    signed_at: fields.signed_at,
    delegation_id: fields.delegation_id,
    scope_exercised: fields.scope_exercised,
    ots: fields.ots ?? null,
    sig: { alg: "bip322", pubkey: fields.address, value: await sign(id) },
  };
  return { envelope, id, message };
}

export async function buildRevocation(fields: RevocationFields, sign: Sign): Promise<Built<RevocationEnvelope>> {
  const { message, id } = await identify("revocation", fields);
  const envelope: RevocationEnvelope = {
    v: 1,
    kind: "agent-revocation",
    id,
    delegation_id: fields.delegation_id,
    signer: { address: fields.address, alg: "bip322" },
    reason: fields.reason,
    signed_at: fields.signed_at,
    ots: null,
    sig: { alg: "bip322", pubkey: fields.address, value: await sign(id) },
  };
  return { envelope, id, message };
}

export async function buildFederationRevocation(
  fields: Omit<RevocationFields, "address"> & { descriptor: FederationDescriptor },
  guardians: readonly Guardian[],
): Promise<Built<RevocationEnvelope>> {
  const parts = await federationParts(fields.descriptor, guardians);
  const built = await buildRevocation({ ...fields, address: parts.address }, () => "");
  const envelope: RevocationEnvelope = { ...built.envelope, signer: parts.principal, sig: await parts.sign(built.id) };
  return { envelope, id: built.id, message: built.message };
}
