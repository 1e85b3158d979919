// Service-spec rule 7 for federation delegations, one clause at a time (descriptor schema, descriptor_id, count,
// threshold, duplicates, membership, string values), and the threshold grammar.
import { describe, expect, it } from "vitest";
import {
  buildFederationDelegation,
  type FederationDescriptor,
  guardianIdentity,
  parseFederationDelegation,
  parseThreshold,
} from "../../shared/envelopes/agent";
import { newWallet } from "../helpers/wallet";

const GUARDIANS = ["bc1qguardiana", "bc1qguardianb", "bc1qguardianc"];
const DESCRIPTOR: FederationDescriptor = {
  v: 1,
  kind: "agent-federation",
  threshold: "2-of-3",
  guardians: GUARDIANS.map((address) => ({ address, alg: "bip322" })),
};
const FIELDS = {
  agent: "bc1qagent",
  scopes: ["ln:send(max_sats<=10)"],
  bond: null,
  issued_at: "2026-05-01T00:00:00Z",
  expires_at: "2026-05-08T00:00:00Z",
  nonce: "d".repeat(32),
};
const placeholder = (address: string) => ({ address, sign: () => "AAAA" });

type Envelope = Record<string, unknown> & { principal: Record<string, unknown>; sig: Record<string, unknown> };

async function envelope(signers = GUARDIANS.slice(0, 2), descriptor = DESCRIPTOR): Promise<Envelope> {
  const built = await buildFederationDelegation({ ...FIELDS, descriptor }, signers.map(placeholder));
  return structuredClone(built.envelope) as unknown as Envelope;
}

function withDescriptor(env: Envelope, descriptor: unknown): Envelope {
  return { ...env, principal: { ...env.principal, descriptor } };
}

describe("rule 7", () => {
  it("a 2-of-3 delegation signed by two guardians passes", async () => {
    const result = await parseFederationDelegation(await envelope());
    expect(result).toMatchObject({
      ok: true,
      federation: { threshold: { m: 2, n: 3 } },
      signer: expect.stringMatching(/^federation:/),
    });
  });

  it.each<[string, unknown]>([
    ["M above N", { ...DESCRIPTOR, threshold: "4-of-3" }],
    ["N not the guardian count", { ...DESCRIPTOR, threshold: "2-of-4" }],
    [
      "a guardian listed twice",
      { ...DESCRIPTOR, guardians: [...DESCRIPTOR.guardians.slice(0, 2), DESCRIPTOR.guardians[0]] },
    ],
    ["wrong kind", { ...DESCRIPTOR, kind: "federation" }],
    ["guardian alg", { ...DESCRIPTOR, guardians: DESCRIPTOR.guardians.map((g) => ({ ...g, alg: "ecdsa" })) }],
  ])("descriptor schema (%s) → descriptor_invalid", async (_name, descriptor) => {
    expect(await parseFederationDelegation(withDescriptor(await envelope(), descriptor))).toMatchObject({
      ok: false,
      reason: "descriptor_invalid",
    });
  });

  it("declared descriptor_id ≠ recomputed → descriptor_id_mismatch", async () => {
    const swapped = withDescriptor(await envelope(), { ...DESCRIPTOR, threshold: "1-of-3" });
    expect(await parseFederationDelegation(swapped)).toMatchObject({
      reason: "descriptor_id_mismatch",
      code: "E_FEDERATION_DESCRIPTOR_MISMATCH",
    });
  });

  it("fewer signatures than M → insufficient_signatures", async () => {
    expect(await parseFederationDelegation(await envelope(GUARDIANS.slice(0, 1)))).toMatchObject({
      reason: "insufficient_signatures",
      code: "E_FEDERATION_BELOW_THRESHOLD",
    });
  });

  it("sig.threshold ≠ the descriptor's → threshold_mismatch", async () => {
    const env = await envelope();
    expect(await parseFederationDelegation({ ...env, sig: { ...env.sig, threshold: "1-of-3" } })).toMatchObject({
      reason: "threshold_mismatch",
      code: "E_FEDERATION_THRESHOLD_MISMATCH",
    });
  });

  it("two signatures by one guardian → duplicate_guardian", async () => {
    expect(
      await parseFederationDelegation(await envelope([GUARDIANS[0] as string, GUARDIANS[0] as string])),
    ).toMatchObject({
      reason: "duplicate_guardian",
      code: "E_FEDERATION_DUPLICATE_GUARDIAN",
    });
  });

  it("attack: one guardian under two spellings (bech32 case) counts once → duplicate_guardian", async () => {
    const keys = [newWallet(), newWallet(), newWallet()].map((w) => w.address);
    const descriptor = { ...DESCRIPTOR, guardians: keys.map((address) => ({ address, alg: "bip322" as const })) };
    const first = keys[0] as string;
    // 2-of-3 "signed" by the first guardian twice: once as written, once upper-cased (the same output script).
    expect(await parseFederationDelegation(await envelope([first, first.toUpperCase()], descriptor))).toMatchObject({
      reason: "duplicate_guardian",
      code: "E_FEDERATION_DUPLICATE_GUARDIAN",
    });
    expect(guardianIdentity(first)).toBe(guardianIdentity(first.toUpperCase()));
    expect(guardianIdentity(first)).not.toBe(guardianIdentity(keys[1] as string));
  });

  it("attack: a descriptor naming one guardian twice (two spellings), 2-of-3 met by that one guardian → descriptor_invalid", async () => {
    const keys = [newWallet(), newWallet()].map((w) => w.address);
    const [a, b] = keys as [string, string];
    const doubled = {
      ...DESCRIPTOR,
      guardians: [a, b, a.toUpperCase()].map((address) => ({ address, alg: "bip322" as const })),
    };
    expect(await parseFederationDelegation(await envelope([a, a.toUpperCase()], doubled))).toMatchObject({
      ok: false,
      reason: "descriptor_invalid",
    });
  });

  it("a signer outside the descriptor → unknown_guardian", async () => {
    expect(await parseFederationDelegation(await envelope([GUARDIANS[0] as string, "bc1qoutsider"]))).toMatchObject({
      reason: "unknown_guardian",
      code: "E_FEDERATION_UNKNOWN_GUARDIAN",
    });
  });

  it("a signature value that is not a string → invalid_body", async () => {
    const env = await envelope();
    const signatures = [
      { guardian_address: GUARDIANS[0], value: 42 },
      { guardian_address: GUARDIANS[1], value: "AAAA" },
    ];
    expect(await parseFederationDelegation({ ...env, sig: { ...env.sig, signatures } })).toMatchObject({
      reason: "invalid_body",
    });
  });

  it("the envelope id still comes first: a tampered field → id_mismatch", async () => {
    expect(await parseFederationDelegation({ ...(await envelope()), nonce: "e".repeat(32) })).toMatchObject({
      reason: "id_mismatch",
    });
  });

  it("a single-address sig block on a federation principal → invalid_body", async () => {
    const env = await envelope();
    expect(
      await parseFederationDelegation({ ...env, sig: { alg: "bip322", pubkey: "bc1qx", value: "AAAA" } }),
    ).toMatchObject({
      reason: "invalid_body",
    });
  });
});

describe("parseThreshold", () => {
  it("reads M-of-N with 1 ≤ M ≤ N", () => {
    expect(parseThreshold("3-of-5")).toEqual({ m: 3, n: 5 });
    expect(parseThreshold("5-of-5")).toEqual({ m: 5, n: 5 });
    for (const bad of ["0-of-3", "4-of-3", "3of5", "3-of-", 3, null]) expect(parseThreshold(bad)).toBeNull();
  });
});
