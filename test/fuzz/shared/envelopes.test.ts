// Property tests of the OC Agent and OC Pledge envelope parsers: envelopes built from the grammar (random scopes,
// addresses, windows, texts) parse, and their canonical JSON parses again to the same id and bytes; arbitrary JSON
// and valid envelopes with one field broken resolve to a refusal with a reason of the error table, never a throw.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildAction,
  buildDelegation,
  buildRevocation,
  buildSubdelegation,
  type ParseResult,
  parseAgentEnvelope,
  parseFederationDelegation,
  parseFederationRevocation,
} from "../../../shared/envelopes/agent";
import {
  createAbandonmentEnvelope,
  createOutcomeEnvelope,
  createPledgeEnvelope,
  type OutcomeInput,
  type PledgeInput,
  parseAbandonmentEnvelope,
  parseOutcomeEnvelope,
  parsePledgeEnvelope,
} from "../../../shared/envelopes/pledge";
import { REASONS } from "../../../shared/errors";
import fedDelegation from "../../vectors/oc-agent-federation/v19-federation-delegation-3of5-valid.json";
import fedRevocation from "../../vectors/oc-agent-federation/v25-federation-revocation-3of5-valid.json";
import v01 from "../../vectors/oc-pledge/v01-pledge-minimal-chain-state.json";
import v02 from "../../vectors/oc-pledge/v02-pledge-stamp-published.json";
import v03 from "../../vectors/oc-pledge/v03-pledge-counterparty-signs-bilateral.json";
import v04 from "../../vectors/oc-pledge/v04-pledge-http-get-hash.json";
import v05 from "../../vectors/oc-pledge/v05-pledge-nostr-event-exists.json";
import v06 from "../../vectors/oc-pledge/v06-pledge-dns-record.json";
import v07 from "../../vectors/oc-pledge/v07-pledge-vote-resolves.json";
import v10 from "../../vectors/oc-pledge/v10-pledge-block-height-resolved.json";
import v11 from "../../vectors/oc-pledge/v11-outcome-kept-deterministic-chain-state.json";
import v13 from "../../vectors/oc-pledge/v13-outcome-kept-counterparty-signs.json";
import v15 from "../../vectors/oc-pledge/v15-outcome-disputed-contradictory.json";
import {
  addressText,
  anyText,
  epochMs,
  hex64,
  isoSecondsText,
  isoUtcText,
  junkJson,
  type Mutation,
  mutate,
  nonce,
  scopeText,
} from "../arbitraries";

type Parse = (json: unknown) => Promise<ParseResult<{ id: string; canonicalJson: string }> | { ok: false }>;

/** Never throws; a refusal has a reason of the table; an acceptance re-parses from its own canonical JSON. */
async function holds(parse: Parse, json: unknown): Promise<void> {
  const result = (await parse(json)) as
    | { ok: true; id: string; canonicalJson: string }
    | { ok: false; reason: string; detail: string };
  if (!result.ok) {
    expect(Object.keys(REASONS)).toContain(result.reason);
    expect(typeof result.detail).toBe("string");
    return;
  }
  const again = (await parse(JSON.parse(result.canonicalJson))) as typeof result;
  expect(again.ok).toBe(true);
  if (!again.ok) return;
  expect(again.id).toBe(result.id);
  expect(again.canonicalJson).toBe(result.canonicalJson);
}

const mutation = fc.tuple(
  fc.nat(),
  fc.constantFrom<Mutation>("replace", "delete", "add"),
  junkJson,
  fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "v", "ots", "bond", "scopes_encrypted")),
);
const signature = fc.base64String({ minLength: 4, maxLength: 120 });
const window = fc.tuple(epochMs, fc.integer({ min: 1000, max: 400 * 86_400_000 })).map(([issued, span]) => ({
  issued_at: new Date(issued).toISOString().replace(".000Z", "Z"),
  expires_at: new Date(issued + span).toISOString().replace(".000Z", "Z"),
}));
const scopes = fc.uniqueArray(scopeText, { minLength: 1, maxLength: 3 });

/** Builders of each OC Agent kind from grammar-made fields, signed with an arbitrary (unchecked here) value. */
const agentEnvelopes = {
  delegation: fc
    .record({
      principal: addressText,
      agent: addressText,
      scopes,
      bond: fc.option(fc.record({ sats: fc.nat(), attestation_id: hex64 }), { nil: null }),
      window,
      nonce,
      holders: fc.subarray(["principal", "agent"] as ("principal" | "agent")[], { minLength: 1 }),
      sig: signature,
    })
    .map(
      ({ window: w, sig, ...f }) =>
        () =>
          buildDelegation({ ...f, ...w }, () => sig),
    ),
  subdelegation: fc
    .record({ parent_id: hex64, principal: addressText, agent: addressText, scopes, window, nonce, sig: signature })
    .map(
      ({ window: w, sig, ...f }) =>
        () =>
          buildSubdelegation({ ...f, ...w }, () => sig),
    ),
  action: fc
    .record({
      address: addressText,
      content_hash: hex64.map((h) => `sha256:${h}`),
      content_length: fc.nat(),
      content_mime: fc.constantFrom("application/json", "text/plain; charset=utf-8", "application/vnd.oc-lock+json"),
      signed_at: isoUtcText,
      delegation_id: hex64,
      scope_exercised: scopeText,
      sig: signature,
    })
    .map(
      ({ sig, ...f }) =>
        () =>
          buildAction(f, () => sig),
    ),
  revocation: fc
    .record({
      address: addressText,
      delegation_id: hex64,
      reason: fc.stringMatching(/^[ -~]{0,60}$/),
      signed_at: isoUtcText,
      sig: signature,
    })
    .map(
      ({ sig, ...f }) =>
        () =>
          buildRevocation(f, () => sig),
    ),
};

describe("OC Agent envelopes", () => {
  for (const [kind, built] of Object.entries(agentEnvelopes)) {
    const parse: Parse = (json) => parseAgentEnvelope(kind as keyof typeof agentEnvelopes, json);

    it(`${kind}: a grammar-built envelope parses to its id and re-parses from its canonical JSON`, async () => {
      await fc.assert(
        fc.asyncProperty(built, async (build) => {
          const { envelope, id } = await build();
          const parsed = await parseAgentEnvelope(kind as keyof typeof agentEnvelopes, envelope);
          if (!parsed.ok) throw new Error(`${parsed.reason}: ${parsed.detail}`);
          expect(parsed.id).toBe(id);
          await holds(parse, envelope);
        }),
        { numRuns: 60 },
      );
    });

    it(`${kind}: one broken field or arbitrary JSON is refused with a table reason, never thrown`, async () => {
      await fc.assert(
        fc.asyncProperty(built, mutation, fc.jsonValue({ maxDepth: 3 }), async (build, [pick, how, junk, key], any) => {
          const { envelope } = await build();
          await holds(parse, mutate(envelope, pick, how, junk, key));
          await holds(parse, any);
        }),
        { numRuns: 80 },
      );
    });
  }

  it("federation delegation and revocation: the vectors with one broken field never throw", async () => {
    await fc.assert(
      fc.asyncProperty(mutation, async ([pick, how, junk, key]) => {
        await holds(parseFederationDelegation, mutate(fedDelegation.expected.envelope, pick, how, junk, key));
        await holds(parseFederationRevocation, mutate(fedRevocation.expected.envelope, pick, how, junk, key));
      }),
      { numRuns: 150 },
    );
  });

  it("a 10,000-deep unknown field is a refusal, not a stack overflow", async () => {
    const [build] = fc.sample(agentEnvelopes.action, 1);
    if (!build) throw new Error("no sample");
    const { envelope } = await build();
    let deep: unknown = 0;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const result = await parseAgentEnvelope("action", { ...envelope, extra: deep });
    expect(result.ok ? "accepted" : result.reason).toMatch(/^(accepted|invalid_body)$/);
  });
});

// Pledges: the vectors' inputs with their free-text and time fields redrawn from the grammar.
const pledgeSeeds = [v01, v02, v03, v04, v05, v06, v07, v10].map((v) => v.inputs as unknown as PledgeInput);
const signer = fc.record({ address: addressText, sig: signature });
const pledge = fc
  .record({
    seed: fc.constantFrom(...pledgeSeeds),
    proposition: fc.stringMatching(/^[^\r\n]{1,80}$/),
    nonce,
    sworn_at: isoSecondsText,
    min_sats: fc.nat(),
    min_days: fc.nat({ max: 3650 }),
    attestation_id: hex64,
    signer,
  })
  .map(({ seed, signer: s, attestation_id, min_sats, min_days, ...fields }) => () => {
    const input: PledgeInput = { ...seed, ...fields, bond: { attestation_id, min_sats, min_days } };
    return createPledgeEnvelope({ ...input, swearer: s.address }, { address: s.address, sign: () => s.sig });
  });
const outcomeSeeds = [v11, v13, v15].map((v) => v.inputs as unknown as OutcomeInput);
const outcome = fc
  .record({ seed: fc.constantFrom(...outcomeSeeds), pledge_id: hex64, resolved_at: isoSecondsText, sig: signature })
  .map(({ seed, sig, ...fields }) => () => {
    const input = { ...seed, ...fields };
    const deterministic = input.resolved_by === "deterministic";
    return createOutcomeEnvelope(input, deterministic ? undefined : { address: input.resolved_by, sign: () => sig });
  });
const abandonment = fc
  .record({
    pledge_id: hex64,
    abandoned_at: isoSecondsText,
    reason: fc.stringMatching(/^[^\r\n]{1,100}$/),
    signer,
  })
  .map(
    ({ signer: s, ...input }) =>
      () =>
        createAbandonmentEnvelope(input, { address: s.address, sign: () => s.sig }),
  );

describe("OC Pledge envelopes", () => {
  const cases = [
    ["pledge", pledge, parsePledgeEnvelope],
    ["outcome", outcome, parseOutcomeEnvelope],
    ["abandonment", abandonment, parseAbandonmentEnvelope],
  ] as const;
  for (const [kind, built, parse] of cases) {
    it(`${kind}: a grammar-built envelope parses to its id and re-parses from its canonical JSON`, async () => {
      await fc.assert(
        fc.asyncProperty(built, async (build) => {
          const made = await build();
          const parsed = await parse(made.envelope);
          if (!parsed.ok) throw new Error(`${parsed.reason}: ${parsed.detail}`);
          expect(parsed.id).toBe(made.id);
          expect(parsed.canonicalJson).toBe(made.canonicalJson);
          await holds(parse as Parse, made.envelope);
        }),
        { numRuns: 60 },
      );
    });

    it(`${kind}: one broken field or arbitrary JSON is refused with a table reason, never thrown`, async () => {
      await fc.assert(
        fc.asyncProperty(built, mutation, fc.oneof(fc.jsonValue({ maxDepth: 3 }), anyText), async (build, m, any) => {
          const { envelope } = await build();
          await holds(parse as Parse, mutate(envelope, ...m));
          await holds(parse as Parse, any);
        }),
        { numRuns: 80 },
      );
    });
  }
});
