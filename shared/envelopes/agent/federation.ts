// v1.2-draft federation principal (oc-wire-formats §3.13; service-spec rule 7): the descriptor's canonical message
// and id, its schema, and the M-of-N signature block checks, in agent-core's order.
import { hex } from "@scure/base";
import { decodeAddress } from "../../bitcoin/address";
import { sha256Hex } from "../../crypto/digest";
import { refusal } from "./codes";
import { ADDRESS, array, HEX64, isRecord, type JsonRecord, literal, record, text } from "./fields";
import type { FederationDescriptor, FederationPrincipal, FederationSignature, GuardianSignature } from "./types";

export const FEDERATION_HEADER = "oc-agent:federation:v1";
export const FEDERATION_PREFIX = "federation:";

export interface Threshold {
  m: number;
  n: number;
}

/** What a parsed federation delegation or revocation carries beside its envelope. */
export interface FederationInfo {
  descriptorId: string;
  descriptor: FederationDescriptor;
  threshold: Threshold;
  signatures: GuardianSignature[];
}

export function parseThreshold(value: unknown): Threshold | null {
  const match = typeof value === "string" ? /^(\d+)-of-(\d+)$/.exec(value) : null;
  if (!match) return null;
  const m = Number(match[1]);
  const n = Number(match[2]);
  return Number.isSafeInteger(n) && m >= 1 && m <= n ? { m, n } : null;
}

/** Guardians one per line in code-unit order of address, whatever the JSON order; names are not signed. */
export function descriptorMessage(descriptor: {
  threshold: string;
  guardians: readonly { address: string }[];
}): string {
  const addresses = descriptor.guardians.map((g) => g.address).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [FEDERATION_HEADER, `threshold: ${descriptor.threshold}`, ...addresses.map((a) => `guardian: ${a}`)].join(
    "\n",
  );
}

export function descriptorId(descriptor: {
  threshold: string;
  guardians: readonly { address: string }[];
}): Promise<string> {
  return sha256Hex(descriptorMessage(descriptor));
}

/** True for a federation principal object, an envelope whose principal or signer is one, or `federation:<id>`. */
export function isFederationPrincipal(value: unknown): boolean {
  if (typeof value === "string") return value.startsWith(FEDERATION_PREFIX);
  if (!isRecord(value)) return false;
  if (value.alg === "federation") return true;
  return [value.principal, value.signer].some((party) => isRecord(party) && party.alg === "federation");
}

/** The envelope-level shape of a federation principal; the descriptor itself is checked by checkFederation. */
export function readFederationPrincipal(obj: JsonRecord, key: string): FederationPrincipal {
  const principal = record(obj[key], key);
  literal(principal, "alg", key, "federation");
  text(principal, "descriptor_id", key, HEX64);
  record(principal.descriptor, `${key}.descriptor`);
  return principal as unknown as FederationPrincipal;
}

/** `sig` of a federation envelope; every guardian_address and value must be a string (rule 7). */
export function readFederationSig(env: JsonRecord): FederationSignature {
  const sig = record(env.sig, "sig");
  literal(sig, "alg", "sig", "federation-bip322");
  text(sig, "threshold", "sig");
  array(sig, "signatures", "sig").forEach((entry, index) => {
    const signature = record(entry, `sig.signatures[${index}]`);
    text(signature, "guardian_address", `sig.signatures[${index}]`);
    text(signature, "value", `sig.signatures[${index}]`);
  });
  return sig as unknown as FederationSignature;
}

function checkDescriptor(value: JsonRecord, path: string): Threshold {
  const invalid = (problem: string) => refusal("descriptor_invalid", "E_MALFORMED", `${path}: ${problem}`);
  if (value.v !== 1) throw invalid("v must be 1");
  if (value.kind !== "agent-federation") throw invalid('kind must be "agent-federation"');
  const threshold = parseThreshold(value.threshold);
  if (!threshold) throw invalid('threshold must be "M-of-N" with 1 ≤ M ≤ N');
  const guardians = value.guardians;
  if (!Array.isArray(guardians) || guardians.length !== threshold.n)
    throw invalid(`guardians must list N = ${threshold.n}`);
  const seen = new Set<string>();
  guardians.forEach((guardian, index) => {
    if (!isRecord(guardian)) throw invalid(`guardians[${index}] must be an object`);
    const { address, alg, name } = guardian;
    if (typeof address !== "string" || !ADDRESS.test(address))
      throw invalid(`guardians[${index}].address is not an address`);
    if (alg !== "bip322") throw invalid(`guardians[${index}].alg must be "bip322"`);
    if (name !== undefined && typeof name !== "string") throw invalid(`guardians[${index}].name must be a string`);
    const identity = guardianIdentity(address);
    if (seen.has(identity)) throw invalid(`guardian ${address} is listed twice (the same output script)`);
    seen.add(identity);
  });
  return threshold;
}

/**
 * Who a guardian is: the output script its address decodes to, on its network, not the spelling. bech32 is
 * case-insensitive, so `bc1q…` and `BC1Q…` are one guardian (security review item 5); an address that does not
 * decode is compared as written (it can never verify a signature anyway).
 */
export function guardianIdentity(address: string): string {
  const decoded = decodeAddress(address);
  return decoded.ok ? `${decoded.network}:${hex.encode(decoded.script)}` : `text:${address}`;
}

/**
 * Rule 7 after the shape and id checks: descriptor schema → descriptor_id → sig.threshold → count ≥ M →
 * each signer a guardian / no repeats (one pass, as agent-core). Throws a Refusal; BIP-322 is verifyEnvelopeSignatures.
 */
export async function checkFederation(
  principal: FederationPrincipal,
  sig: FederationSignature,
  path: string,
): Promise<FederationInfo> {
  const threshold = checkDescriptor(principal.descriptor as unknown as JsonRecord, `${path}.descriptor`);
  const recomputed = await descriptorId(principal.descriptor);
  if (recomputed !== principal.descriptor_id) {
    throw refusal("descriptor_id_mismatch", "E_FEDERATION_DESCRIPTOR_MISMATCH", `descriptor hashes to ${recomputed}`);
  }
  if (sig.threshold !== principal.descriptor.threshold) {
    const detail = `sig.threshold ${sig.threshold} ≠ descriptor threshold ${principal.descriptor.threshold}`;
    throw refusal("threshold_mismatch", "E_FEDERATION_THRESHOLD_MISMATCH", detail);
  }
  if (sig.signatures.length < threshold.m) {
    const detail = `${sig.signatures.length} signature(s), threshold needs ${threshold.m}`;
    throw refusal("insufficient_signatures", "E_FEDERATION_BELOW_THRESHOLD", detail);
  }
  const guardians = new Set(principal.descriptor.guardians.map((g) => guardianIdentity(g.address)));
  const signed = new Set<string>();
  for (const { guardian_address: address } of sig.signatures) {
    const identity = guardianIdentity(address);
    if (!guardians.has(identity))
      throw refusal("unknown_guardian", "E_FEDERATION_UNKNOWN_GUARDIAN", `${address} is not a guardian`);
    if (signed.has(identity))
      throw refusal("duplicate_guardian", "E_FEDERATION_DUPLICATE_GUARDIAN", `${address} signed twice`);
    signed.add(identity);
  }
  return { descriptorId: recomputed, descriptor: principal.descriptor, threshold, signatures: sig.signatures };
}
