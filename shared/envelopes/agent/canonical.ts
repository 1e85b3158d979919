// OC Agent canonical messages (oc-wire-formats §3.2–3.5): LF-separated lines, no trailing LF, and the envelope id,
// the lowercase hex SHA-256 of the message bytes. Scopes given raw are canonicalised and sorted here.
import { sha256Hex } from "../../crypto/digest";
import type { OcErrorCode } from "./codes";
import { canonicalizeScopes } from "./scope";
import type { AgentKind } from "./types";

export const MESSAGE_HEADER = {
  delegation: "oc-agent:delegation:v1",
  subdelegation: "oc-agent:subdelegation:v1",
  action: "oc-agent:action:v1",
  revocation: "oc-agent:revocation:v1",
} as const satisfies Record<AgentKind, string>;

/** `principal` is a BTC address, or `federation:<descriptor_id>` for a federation principal (§3.13). */
export interface DelegationFields {
  principal: string;
  agent: string;
  scopes: readonly string[];
  bond: { sats: number; attestation_id: string } | null;
  issued_at: string;
  expires_at: string;
  nonce: string;
}

export interface SubdelegationFields {
  parent_id: string;
  principal: string;
  agent: string;
  scopes: readonly string[];
  issued_at: string;
  expires_at: string;
  nonce: string;
}

export interface ActionFields {
  address: string;
  content_hash: string;
  content_length: number;
  content_mime: string;
  signed_at: string;
  delegation_id: string;
  /** Used verbatim (§3.3): the signer is expected to emit it in canonical form. */
  scope_exercised: string;
}

/** `address` is the signer, or `federation:<descriptor_id>` for a federation revocation. */
export interface RevocationFields {
  address: string;
  delegation_id: string;
  reason: string;
  signed_at: string;
}

export interface MessageFields {
  delegation: DelegationFields;
  subdelegation: SubdelegationFields;
  action: ActionFields;
  revocation: RevocationFields;
}

export class AgentCanonicalError extends Error {
  override name = "AgentCanonicalError";
  readonly code: OcErrorCode;
  constructor(code: OcErrorCode, detail: string) {
    super(detail);
    this.code = code;
  }
}

// A value carrying a line break would let one signed message read as another.
function line(label: string, value: string | number): string {
  const text = String(value);
  if (/[\r\n]/.test(text)) throw new AgentCanonicalError("E_MALFORMED", `${label} contains a line break`);
  return `${label}: ${text}`;
}

function count(label: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new AgentCanonicalError("E_MALFORMED", `${label} must be a non-negative integer`);
  }
  return value;
}

function scopesLine(scopes: readonly string[]): string {
  const canonical = canonicalizeScopes(scopes);
  if (!canonical.ok) throw new AgentCanonicalError("E_BAD_SCOPE_GRAMMAR", canonical.detail);
  return line("scopes", canonical.scopes.join(","));
}

const BUILDERS: { [K in AgentKind]: (fields: MessageFields[K]) => string[] } = {
  delegation: (f) => [
    line("principal", f.principal),
    line("agent", f.agent),
    scopesLine(f.scopes),
    line("bond_sats", f.bond ? count("bond_sats", f.bond.sats) : 0),
    line("bond_attestation", f.bond ? f.bond.attestation_id : "none"),
    line("issued_at", f.issued_at),
    line("expires_at", f.expires_at),
    line("nonce", f.nonce),
  ],
  subdelegation: (f) => [
    line("parent_id", f.parent_id),
    line("principal", f.principal),
    line("agent", f.agent),
    scopesLine(f.scopes),
    line("issued_at", f.issued_at),
    line("expires_at", f.expires_at),
    line("nonce", f.nonce),
  ],
  action: (f) => [
    line("address", f.address),
    line("content_hash", f.content_hash),
    line("content_length", count("content_length", f.content_length)),
    line("content_mime", f.content_mime),
    line("signed_at", f.signed_at),
    line("delegation_id", f.delegation_id),
    line("scope_exercised", f.scope_exercised),
  ],
  revocation: (f) => [
    line("address", f.address),
    line("delegation_id", f.delegation_id),
    // An empty reason still yields "reason: " with its trailing space (v04).
    line("reason", f.reason),
    line("signed_at", f.signed_at),
  ],
};

/** The exact text the signer hashes. Throws AgentCanonicalError (E_BAD_SCOPE_GRAMMAR, E_MALFORMED). */
export function canonicalMessage<K extends AgentKind>(kind: K, fields: MessageFields[K]): string {
  return [MESSAGE_HEADER[kind], ...BUILDERS[kind](fields)].join("\n");
}

/** Lowercase hex SHA-256 of the message's UTF-8 bytes. */
export function envelopeId(message: string): Promise<string> {
  return sha256Hex(message);
}
