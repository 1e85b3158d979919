// OC Pledge signatures with real keys: BIP-322 over the 64-char hex id by the right signer (swearer, agent,
// resolver, swearer for abandonments), tampering refused, and when an outcome may be unsigned.
import { base64 } from "@scure/base";
import { describe, expect, it } from "vitest";
import {
  createAbandonmentEnvelope,
  createOutcomeEnvelope,
  createPledgeEnvelope,
  messageId,
  type OutcomeInput,
  type ParsedPledgeEnvelope,
  type PledgeInput,
  parseAbandonmentEnvelope,
  parseOutcomeEnvelope,
  parsePledgeEnvelope,
  pledgeMessage,
  verifyPledgeSignature,
} from "../../shared/envelopes/pledge";
import { newWallet, type Wallet, type WalletKind } from "../helpers/wallet";
import v01 from "../vectors/oc-pledge/v01-pledge-minimal-chain-state.json";
import v03 from "../vectors/oc-pledge/v03-pledge-counterparty-signs-bilateral.json";
import v11 from "../vectors/oc-pledge/v11-outcome-kept-deterministic-chain-state.json";
import v16 from "../vectors/oc-pledge/v16-outcome-expired-unresolved.json";

const DELEGATION_ID = "36d79600191db871baa3fc9aa3b5e77750a5c423b1f620ec26cf16bd122e19a7";

function pledgeInput(swearer: Wallet): PledgeInput {
  return { ...(v01.inputs as unknown as PledgeInput), swearer: swearer.address };
}

/** What the route sees: the envelope after a JSON round trip, parsed. */
async function received<P extends ParsedPledgeEnvelope>(
  envelope: unknown,
  parse: (json: unknown) => Promise<P | { ok: false }>,
): Promise<P> {
  const parsed = await parse(JSON.parse(JSON.stringify(envelope)));
  if (!parsed.ok) throw new Error(`does not parse: ${JSON.stringify(parsed)}`);
  return parsed as P;
}

/** Flips one byte inside the first witness item (the signature), keeping the encoding readable. */
function tamper(signature: string): string {
  const bytes = base64.decode(signature);
  bytes[10] = (bytes[10] ?? 0) ^ 0x01;
  return base64.encode(bytes);
}

describe("pledge signatures", () => {
  it.each<WalletKind>(["p2wpkh", "p2tr", "p2pkh"])("a %s swearer's signature over the id verifies", async (kind) => {
    const swearer = newWallet(kind);
    const created = await createPledgeEnvelope(pledgeInput(swearer), swearer);
    const parsed = await received(created.envelope, parsePledgeEnvelope);
    expect(verifyPledgeSignature(parsed)).toEqual({ ok: true, signer: swearer.address });
  });

  it("a tampered signature is envelope_signature_invalid", async () => {
    const swearer = newWallet("p2wpkh");
    const { envelope } = await createPledgeEnvelope(pledgeInput(swearer), swearer);
    const parsed = await received(
      { ...envelope, sig: { ...envelope.sig, value: tamper(envelope.sig.value) } },
      parsePledgeEnvelope,
    );
    expect(verifyPledgeSignature(parsed)).toMatchObject({
      ok: false,
      reason: "envelope_signature_invalid",
      code: "E_PLEDGE_BAD_SIG",
    });
  });

  it("a signature over another pledge's id does not carry over", async () => {
    const swearer = newWallet("p2wpkh");
    const { envelope } = await createPledgeEnvelope(pledgeInput(swearer), swearer);
    const changed = { ...pledgeInput(swearer), proposition: "Something else entirely." };
    const built = pledgeMessage(changed);
    if (!built.ok) throw new Error(built.detail);
    const moved = { ...envelope, proposition: changed.proposition, id: await messageId(built.message) };
    const parsed = await received(moved, parsePledgeEnvelope);
    expect(verifyPledgeSignature(parsed)).toMatchObject({ ok: false, reason: "envelope_signature_invalid" });
  });

  it("another key's signature is refused; an undecodable one is malformed_signature", async () => {
    const swearer = newWallet("p2wpkh");
    const { envelope, id } = await createPledgeEnvelope(pledgeInput(swearer), swearer);
    const forged = await received(
      { ...envelope, sig: { ...envelope.sig, value: newWallet().sign(id) } },
      parsePledgeEnvelope,
    );
    expect(verifyPledgeSignature(forged)).toMatchObject({ ok: false, reason: "envelope_signature_invalid" });
    const garbled = await received({ ...envelope, sig: { ...envelope.sig, value: "not*base64" } }, parsePledgeEnvelope);
    expect(verifyPledgeSignature(garbled)).toMatchObject({ ok: false, reason: "malformed_signature" });
  });

  it("an agent-delegated pledge verifies under agent_address, whichever sig.pubkey (discrepancy 15)", async () => {
    const principal = newWallet("p2wpkh");
    const agent = newWallet("p2tr");
    const { envelope } = await createPledgeEnvelope(pledgeInput(principal), agent, { delegationId: DELEGATION_ID });
    expect(envelope).toMatchObject({ via_delegation: DELEGATION_ID, agent_address: agent.address });
    const asSpec = await received(envelope, parsePledgeEnvelope);
    expect(verifyPledgeSignature(asSpec)).toEqual({ ok: true, signer: agent.address });
    // v08's form: sig.pubkey is the swearer, the agent still signed.
    const asV08 = await received(
      { ...envelope, sig: { ...envelope.sig, pubkey: principal.address } },
      parsePledgeEnvelope,
    );
    expect(verifyPledgeSignature(asV08)).toEqual({ ok: true, signer: agent.address });
    // The principal's own signature does not stand in for the agent's.
    const byPrincipal = { ...envelope, sig: { ...envelope.sig, value: principal.sign(envelope.id) } };
    expect(verifyPledgeSignature(await received(byPrincipal, parsePledgeEnvelope))).toMatchObject({ ok: false });
  });
});

describe("outcome signatures", () => {
  const counterpartyOutcome = (resolver: Wallet, outcome: OutcomeInput["outcome"] = "kept"): OutcomeInput => ({
    ...(v11.inputs as unknown as OutcomeInput),
    pledge_id: v03.expected.pledge_id,
    outcome,
    resolved_by: resolver.address,
    evidence: { mechanism: "counterparty_signs", result: outcome, witness: "counterparty_sig=x" },
  });

  it("a resolver's signature verifies; tampered, it does not", async () => {
    const counterparty = newWallet("p2wpkh");
    const { envelope } = await createOutcomeEnvelope(counterpartyOutcome(counterparty), counterparty);
    const parsed = await received(envelope, parseOutcomeEnvelope);
    expect(verifyPledgeSignature(parsed)).toEqual({ ok: true, signer: counterparty.address });
    const sig = envelope.sig as NonNullable<typeof envelope.sig>;
    const tampered = await received({ ...envelope, sig: { ...sig, value: tamper(sig.value) } }, parseOutcomeEnvelope);
    expect(verifyPledgeSignature(tampered)).toMatchObject({ ok: false, code: "E_OUTCOME_BAD_SIG" });
  });

  it("an outcome resolved by an address with sig null is refused", async () => {
    const { envelope } = await createOutcomeEnvelope(counterpartyOutcome(newWallet()));
    const parsed = await received(envelope, parseOutcomeEnvelope);
    expect(verifyPledgeSignature(parsed)).toMatchObject({ ok: false, reason: "envelope_signature_invalid" });
  });

  it("unsigned: deterministic mechanisms and expired_unresolved only", async () => {
    const deterministic = async (input: OutcomeInput) =>
      verifyPledgeSignature(await received((await createOutcomeEnvelope(input)).envelope, parseOutcomeEnvelope));
    const chainKept = v11.inputs as unknown as OutcomeInput;
    const expiry = v16.inputs as unknown as OutcomeInput;
    expect(await deterministic(chainKept)).toEqual({ ok: true, signer: null });
    expect(await deterministic(expiry)).toEqual({ ok: true, signer: null });
    expect(await deterministic({ ...chainKept, outcome: "disputed" })).toMatchObject({ ok: false });
    expect(await deterministic({ ...expiry, outcome: "kept" })).toMatchObject({
      ok: false,
      reason: "envelope_signature_invalid",
      code: "E_OUTCOME_BAD_SIG",
    });
  });
});

describe("abandonment signatures", () => {
  it("the swearer's signature verifies; tampered, it does not", async () => {
    const swearer = newWallet("p2tr");
    const input = { pledge_id: v03.expected.pledge_id, abandoned_at: "2026-05-01T00:00:00Z", reason: "cannot deliver" };
    const { envelope } = await createAbandonmentEnvelope(input, swearer);
    expect(verifyPledgeSignature(await received(envelope, parseAbandonmentEnvelope))).toEqual({
      ok: true,
      signer: swearer.address,
    });
    const tampered = { ...envelope, sig: { ...envelope.sig, value: tamper(envelope.sig.value) } };
    expect(verifyPledgeSignature(await received(tampered, parseAbandonmentEnvelope))).toMatchObject({
      ok: false,
      code: "E_ABANDONMENT_BAD_SIG",
    });
  });
});
