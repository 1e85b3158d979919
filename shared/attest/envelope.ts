// The OC Attest JSON envelope (oc-wire-formats §1.6): built from a signed canonical message, and the integrity
// checks a consumer runs on one received from elsewhere (id = sha256(message), address line = address).
import { base64urlnopad } from "@scure/base";
import { utf8 } from "../crypto/digest";
import { AttestBuildError } from "./build-error";
import { ATTESTATION_ID, attestationId } from "./id";
import type { Identity } from "./identities";
import { type ParsedAttestation, parseAttestationMessage } from "./parse";

export type AttestScheme = "bip322" | "legacy";

export interface AttestationEnvelope {
  attestation_id: string;
  scheme: AttestScheme;
  address: string;
  identities: Identity[];
  message: string;
  message_b64url: string;
  signature: string;
  issued_at: string;
  expires_at?: string;
  verification_url?: string;
  publish_targets?: string[];
  relay_hints?: string[];
}

export interface CreateEnvelopeInput {
  message: string;
  signature: string;
  scheme: AttestScheme;
  /** attestationId(message); computed by the caller because hashing is async. */
  attestationId: string;
  /** Omitted from the envelope when absent. */
  verificationUrl?: string;
}

function splitList(value: string | undefined): string[] | undefined {
  const items = value
    ?.split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items && items.length > 0 ? items : undefined;
}

/** Fields come from the signed message, never from the caller. Throws AttestBuildError on a bad message or id. */
export function createAttestationEnvelope(input: CreateEnvelopeInput): AttestationEnvelope {
  const parsed = parseAttestationMessage(input.message);
  if (!parsed.ok) throw new AttestBuildError("message", `not a canonical attestation message: ${parsed.detail}`);
  if (!ATTESTATION_ID.test(input.attestationId)) {
    throw new AttestBuildError("attestation_id", "attestation id must be 64 lowercase hex characters");
  }
  const { message } = parsed;
  const envelope: AttestationEnvelope = {
    attestation_id: input.attestationId,
    scheme: input.scheme,
    address: message.address,
    identities: message.identities,
    message: input.message,
    message_b64url: base64urlnopad.encode(utf8(input.message)),
    signature: input.signature,
    issued_at: message.issuedAt,
  };
  if (message.extensions.expires !== undefined) envelope.expires_at = message.extensions.expires;
  if (input.verificationUrl !== undefined) envelope.verification_url = input.verificationUrl;
  const publishTargets = splitList(message.extensions.publish);
  if (publishTargets) envelope.publish_targets = publishTargets;
  const relayHints = splitList(message.extensions.relay_hints);
  if (relayHints) envelope.relay_hints = relayHints;
  return envelope;
}

/** An envelope as received: the five fields every consumer needs, anything else carried along untouched. */
export interface EnvelopeContent {
  attestation_id: string;
  scheme: string;
  address: string;
  message: string;
  signature: string;
  [field: string]: unknown;
}

export type EnvelopeFailure =
  | "envelope_malformed"
  | "message_malformed"
  | "attestation_id_mismatch"
  | "address_mismatch"
  | "subject_mismatch";

export type EnvelopeCheck =
  | { ok: true; envelope: EnvelopeContent; parsed: ParsedAttestation }
  | { ok: false; reason: EnvelopeFailure };

const REQUIRED_FIELDS = ["attestation_id", "scheme", "address", "message", "signature"] as const;

export function isEnvelopeContent(value: unknown): value is EnvelopeContent {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return REQUIRED_FIELDS.every((field) => typeof record[field] === "string");
}

/**
 * Integrity of a received envelope (not its signature or bond: re-verify with preVerifyAttestation).
 * `expected` pins the subject a discovery query asked for; identities are matched by the caller on `parsed`.
 */
export async function checkEnvelopeConsistency(
  envelope: unknown,
  expected: { attestationId?: string; address?: string } = {},
): Promise<EnvelopeCheck> {
  if (!isEnvelopeContent(envelope)) return { ok: false, reason: "envelope_malformed" };
  if ((await attestationId(envelope.message)) !== envelope.attestation_id) {
    return { ok: false, reason: "attestation_id_mismatch" };
  }
  const parsed = parseAttestationMessage(envelope.message);
  if (!parsed.ok) return { ok: false, reason: "message_malformed" };
  if (parsed.message.address !== envelope.address) return { ok: false, reason: "address_mismatch" };
  const subjectOk =
    (expected.attestationId === undefined || expected.attestationId === envelope.attestation_id) &&
    (expected.address === undefined || expected.address === envelope.address);
  if (!subjectOk) return { ok: false, reason: "subject_mismatch" };
  return { ok: true, envelope, parsed: parsed.message };
}
