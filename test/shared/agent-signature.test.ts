// Real BIP-322 signatures over envelope ids (§3.7; DECISIONS 3): envelopes whose principal, agent and guardians are
// fresh wallets verify; a tampered signature is envelope_signature_invalid, an undecodable one malformed_signature.
import { base64 } from "@scure/base";
import { describe, expect, it } from "vitest";
import {
  type AgentKind,
  buildAction,
  buildDelegation,
  buildFederationDelegation,
  buildFederationRevocation,
  buildRevocation,
  buildSubdelegation,
  type ParsedByKind,
  parseAgentEnvelope,
  parseFederationDelegation,
  verifyEnvelopeSignatures,
} from "../../shared/envelopes/agent";
import { newWallet } from "../helpers/wallet";

const WINDOW = { issued_at: "2026-05-01T00:00:00Z", expires_at: "2026-05-08T00:00:00Z" };
const sign = (wallet: { sign(message: string): string }) => (id: string) => wallet.sign(id);

async function parsed<K extends AgentKind>(kind: K, json: unknown): Promise<ParsedByKind[K]> {
  const result = await parseAgentEnvelope(kind, json);
  if (!result.ok) throw new Error(result.detail);
  return result;
}

function flipByte(signature: string, index: number): string {
  const bytes = base64.decode(signature);
  bytes[index] = (bytes[index] ?? 0) ^ 0x01;
  return base64.encode(bytes);
}

/** A byte inside the signature proper for every kind: in r of the DER or compact form, in the Schnorr body. */
const SIGNATURE_BYTE = 12;

describe.each(["p2wpkh", "p2tr", "p2pkh"] as const)("%s signers", (kind) => {
  it("a delegation, sub-delegation, action and revocation verify under their §3.7 signers", async () => {
    const [principal, agent, subagent] = [newWallet(kind), newWallet(kind), newWallet(kind)];
    const scopes = ["lock:seal(recipient=alice)"];
    const nonce = "a".repeat(32);
    const root = await buildDelegation(
      { principal: principal.address, agent: agent.address, scopes, bond: null, nonce, ...WINDOW },
      sign(principal),
    );
    const sub = await buildSubdelegation(
      { parent_id: root.id, principal: agent.address, agent: subagent.address, scopes, nonce, ...WINDOW },
      sign(agent),
    );
    const action = await buildAction(
      {
        address: subagent.address,
        content_hash: `sha256:${"0".repeat(64)}`,
        content_length: 0,
        content_mime: "text/plain",
        signed_at: "2026-05-02T00:00:00Z",
        delegation_id: sub.id,
        scope_exercised: scopes[0] as string,
      },
      sign(subagent),
    );
    const revocation = await buildRevocation(
      { address: principal.address, delegation_id: root.id, reason: "rotated", signed_at: "2026-05-03T00:00:00Z" },
      sign(principal),
    );
    for (const result of [
      await parsed("delegation", root.envelope),
      await parsed("subdelegation", sub.envelope),
      await parsed("action", action.envelope),
      await parsed("revocation", revocation.envelope),
    ]) {
      expect(verifyEnvelopeSignatures(result), result.kind).toEqual({ ok: true });
    }
  });

  it("tampered → envelope_signature_invalid; another key → invalid; undecodable → malformed_signature", async () => {
    const [principal, agent, stranger] = [newWallet(kind), newWallet(kind), newWallet(kind)];
    const fields = {
      principal: principal.address,
      agent: agent.address,
      scopes: ["ln:send"],
      bond: null,
      nonce: "b".repeat(32),
      ...WINDOW,
    };
    const good = await buildDelegation(fields, sign(principal));
    const withSig = (value: string) => parsed("delegation", { ...good.envelope, sig: { ...good.envelope.sig, value } });
    const value = (good.envelope.sig as { value: string }).value;

    expect(verifyEnvelopeSignatures(await withSig(flipByte(value, SIGNATURE_BYTE)))).toMatchObject({
      ok: false,
      reason: "envelope_signature_invalid",
      code: "E_BAD_SIG",
    });
    expect(verifyEnvelopeSignatures(await withSig(stranger.sign(good.id)))).toMatchObject({
      reason: "envelope_signature_invalid",
    });
    expect(verifyEnvelopeSignatures(await withSig("AAAA"))).toMatchObject({ reason: "malformed_signature" });
  });
});

describe("action signatures", () => {
  it("report E_BAD_ACTION_STAMP, as agent-core does", async () => {
    const agent = newWallet();
    const fields = {
      address: agent.address,
      content_hash: `sha256:${"0".repeat(64)}`,
      content_length: 1,
      content_mime: "text/plain",
      signed_at: "2026-05-02T00:00:00Z",
      delegation_id: "0".repeat(64),
      scope_exercised: "ln:send",
    };
    const signedByAnother = await buildAction(fields, sign(newWallet()));
    expect(verifyEnvelopeSignatures(await parsed("action", signedByAnother.envelope))).toMatchObject({
      reason: "envelope_signature_invalid",
      code: "E_BAD_ACTION_STAMP",
    });
  });
});

describe("federation guardian signatures (DECISIONS 3)", () => {
  const guardians = [newWallet("p2wpkh"), newWallet("p2tr"), newWallet("p2pkh")] as const;
  const descriptor = {
    v: 1 as const,
    kind: "agent-federation" as const,
    threshold: "2-of-3",
    guardians: guardians.map((g) => ({ address: g.address, alg: "bip322" as const })),
  };
  const fields = {
    agent: newWallet().address,
    scopes: ["ln:send"],
    bond: null,
    nonce: "c".repeat(32),
    ...WINDOW,
    descriptor,
  };
  const signer = (wallet: (typeof guardians)[number], as = wallet) => ({ address: as.address, sign: sign(wallet) });

  it("every signing guardian verifies, on delegations and revocations", async () => {
    const built = await buildFederationDelegation(fields, [signer(guardians[2]), signer(guardians[0])]);
    const result = await parseFederationDelegation(built.envelope);
    if (!result.ok) throw new Error(result.detail);
    expect(verifyEnvelopeSignatures(result)).toEqual({ ok: true });
    const revocation = await buildFederationRevocation(
      { delegation_id: built.id, reason: "", signed_at: "2026-05-03T00:00:00Z", descriptor },
      [signer(guardians[1]), signer(guardians[2])],
    );
    expect(verifyEnvelopeSignatures(await parsed("revocation", revocation.envelope))).toEqual({ ok: true });
  });

  it("one guardian's signature made by another key → envelope_signature_invalid", async () => {
    const built = await buildFederationDelegation(fields, [signer(guardians[0]), signer(newWallet(), guardians[1])]);
    const result = await parseFederationDelegation(built.envelope);
    if (!result.ok) throw new Error(result.detail);
    expect(verifyEnvelopeSignatures(result)).toMatchObject({
      ok: false,
      reason: "envelope_signature_invalid",
      code: "E_BAD_SIG",
    });
  });
});
