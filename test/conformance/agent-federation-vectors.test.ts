// Every OC Agent v1.2-draft federation vector of ../vectors/oc-agent-federation (v18–v26): descriptor message
// and id, federation delegation and revocation messages and ids, service-spec rule 7's reason for each negative
// vector's code (§3.13 discrepancy: the vectors' E_FEDERATION_* names), and the single-address baseline.
import { describe, expect, it } from "vitest";
import { utf8 } from "../../shared/crypto/digest";
import {
  buildFederationDelegation,
  buildFederationRevocation,
  canonicalMessage,
  checkDelegationSession,
  checkRevocation,
  descriptorId,
  descriptorMessage,
  envelopeId,
  FEDERATION_CODE_ALIASES,
  type FederationDescriptor,
  flatFields,
  isFederationPrincipal,
  parseAgentEnvelope,
  parseFederationDelegation,
  parseFederationRevocation,
} from "../../shared/envelopes/agent";
import { canonicalJson, type JsonValue } from "../../shared/envelopes/canonical-json";
import v18 from "../vectors/oc-agent-federation/v18-federation-descriptor-3of5.json";
import v19 from "../vectors/oc-agent-federation/v19-federation-delegation-3of5-valid.json";
import v20 from "../vectors/oc-agent-federation/v20-federation-delegation-2of5-below-threshold.json";
import v21 from "../vectors/oc-agent-federation/v21-federation-delegation-duplicate-guardian.json";
import v22 from "../vectors/oc-agent-federation/v22-federation-delegation-unknown-guardian.json";
import v23 from "../vectors/oc-agent-federation/v23-federation-delegation-descriptor-id-mismatch.json";
import v24 from "../vectors/oc-agent-federation/v24-federation-delegation-threshold-mismatch.json";
import v25 from "../vectors/oc-agent-federation/v25-federation-revocation-3of5-valid.json";
import v26 from "../vectors/oc-agent-federation/v26-federation-singleaddress-baseline-unchanged.json";

const DESCRIPTOR = v18.expected.descriptor as FederationDescriptor;
const placeholder = (address: string) => ({ address, sign: () => "AAAA" });

async function federationDelegation(json: unknown) {
  const result = await parseFederationDelegation(json);
  if (!result.ok) throw new Error(`did not parse: ${result.reason} ${result.detail}`);
  return result;
}

describe("v18-federation-descriptor-3of5", () => {
  it("rebuilds the descriptor message, its length and descriptor_id", async () => {
    const message = descriptorMessage(v18.inputs);
    expect(message).toBe(v18.expected.canonical_message);
    expect(utf8(message).length).toBe(v18.expected.canonical_message_bytes_len);
    expect(await descriptorId(v18.inputs)).toBe(v18.expected.descriptor_id);
    expect(message.split("\n")[0]).toHaveLength(22); // FEDERATION.md says 23 (discrepancy 12)
  });
  it("sorts guardians by address whatever the JSON order, and leaves names out", async () => {
    const shuffled = {
      ...v18.inputs,
      guardians: [...v18.inputs.guardians].reverse().map((g) => ({ ...g, name: "x" })),
    };
    expect(await descriptorId(shuffled)).toBe(v18.expected.descriptor_id);
  });
});

describe("v19-federation-delegation-3of5-valid", () => {
  it("rebuilds message (principal federation:<descriptor_id>), length and id", async () => {
    const message = canonicalMessage("delegation", v19.inputs);
    expect(message).toBe(v19.expected.canonical_message);
    expect(utf8(message).length).toBe(v19.expected.canonical_message_bytes_len);
    expect(await envelopeId(message)).toBe(v19.expected.id);
  });
  it("passes rule 7 and re-serialises; the builder makes the same envelope", async () => {
    const parsed = await federationDelegation(v19.expected.envelope);
    expect(parsed.federation).toMatchObject({ descriptorId: v18.expected.descriptor_id, threshold: { m: 3, n: 5 } });
    expect(parsed.canonicalJson).toBe(canonicalJson(v19.expected.envelope as JsonValue));
    expect(flatFields(parsed).principal_address).toBe(v19.inputs.principal);
    const signers = v19.expected.envelope.sig.signatures.map((s) => placeholder(s.guardian_address));
    const { principal: _p, ...fields } = v19.inputs;
    const built = await buildFederationDelegation({ ...fields, descriptor: DESCRIPTOR }, signers);
    expect(canonicalJson(built.envelope as unknown as JsonValue)).toBe(parsed.canonicalJson);
  });
  it("is refused at /api/delegations (rule 6) and registers for a signing guardian (DECISIONS 28)", async () => {
    expect(isFederationPrincipal(v19.expected.envelope)).toBe(true);
    const single = await parseAgentEnvelope("delegation", v19.expected.envelope);
    expect(single).toMatchObject({ ok: false, reason: "federation_principal_wrong_endpoint" });
    const parsed = await federationDelegation(v19.expected.envelope);
    expect(checkDelegationSession(parsed, "bc1qguardian3000000000000000000000000000000")).toEqual({ ok: true });
    expect(checkDelegationSession(parsed, "bc1qguardian2000000000000000000000000000000")).toMatchObject({
      reason: "principal_must_match_session",
    });
  });
});

describe.each([
  ["v20-federation-delegation-2of5-below-threshold", v20, "insufficient_signatures"],
  ["v21-federation-delegation-duplicate-guardian", v21, "duplicate_guardian"],
  ["v22-federation-delegation-unknown-guardian", v22, "unknown_guardian"],
  ["v23-federation-delegation-descriptor-id-mismatch", v23, "descriptor_id_mismatch"],
  ["v24-federation-delegation-threshold-mismatch", v24, "threshold_mismatch"],
] as const)("%s", (_name, vector, reason) => {
  it(`${vector.expected.error_code} → ${reason}`, async () => {
    expect(vector.expected.envelope.id).toBe(v19.expected.id); // the real id: the targeted rule fires, not id_mismatch
    const result = await parseFederationDelegation(vector.expected.envelope);
    expect(result).toMatchObject({ ok: false, code: vector.expected.error_code, reason });
    expect(vector.expected.error_code in FEDERATION_CODE_ALIASES).toBe(true);
  });
});

describe("v25-federation-revocation-3of5-valid", () => {
  it("rebuilds message (address federation:<descriptor_id>), length and id", async () => {
    const message = canonicalMessage("revocation", v25.inputs);
    expect(message).toBe(v25.expected.canonical_message);
    expect(utf8(message).length).toBe(v25.expected.canonical_message_bytes_len);
    expect(await envelopeId(message)).toBe(v25.expected.id);
  });
  it("passes rule 7 by another guardian subset, on both parse paths; the builder agrees", async () => {
    const viaRoute = await parseAgentEnvelope("revocation", v25.expected.envelope);
    const direct = await parseFederationRevocation(v25.expected.envelope);
    expect(viaRoute).toMatchObject({ ok: true, id: v25.expected.id, signer: v25.inputs.address });
    expect(direct).toMatchObject({ ok: true, canonicalJson: canonicalJson(v25.expected.envelope as JsonValue) });
    const signers = v25.expected.envelope.sig.signatures.map((s) => placeholder(s.guardian_address));
    const { address: _a, ...fields } = v25.inputs;
    const built = await buildFederationRevocation({ ...fields, descriptor: DESCRIPTOR }, signers);
    expect(canonicalJson(built.envelope as unknown as JsonValue)).toBe(
      canonicalJson(v25.expected.envelope as JsonValue),
    );
  });
  it("revokes v19 when a signing guardian is the session; not for a guardian who did not sign", async () => {
    const revocation = await parseFederationRevocation(v25.expected.envelope);
    if (!revocation.ok) throw new Error(revocation.detail);
    const target = await federationDelegation(v19.expected.envelope);
    const ctx = { targetStatus: "active" as const, sessionAddress: "bc1qguardian5000000000000000000000000000000" };
    expect(checkRevocation(revocation, target, ctx)).toEqual({ ok: true });
    const outsider = { ...ctx, sessionAddress: "bc1qguardian1000000000000000000000000000000" };
    expect(checkRevocation(revocation, target, outsider)).toMatchObject({ reason: "signer_must_match_session" });
  });
});

describe("v26-federation-singleaddress-baseline-unchanged", () => {
  it("rebuilds message, length and id; parses on the single-address path unchanged", async () => {
    const message = canonicalMessage("delegation", v26.inputs);
    expect(message).toBe(v26.expected.canonical_message);
    expect(utf8(message).length).toBe(v26.expected.canonical_message_bytes_len);
    expect(await envelopeId(message)).toBe(v26.expected.id);
    const parsed = await parseAgentEnvelope("delegation", v26.expected.envelope);
    expect(parsed).toMatchObject({ ok: true, id: v26.expected.id, federation: null });
    expect(isFederationPrincipal(v26.expected.envelope)).toBe(false);
  });
  it("is not a federation delegation (refused at /api/delegations/federation)", async () => {
    const result = await parseFederationDelegation(v26.expected.envelope);
    expect(result).toMatchObject({ ok: false, reason: "invalid_body" });
  });
});
