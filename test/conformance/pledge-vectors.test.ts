// Every OC Pledge v1 vector of ../vectors/oc-pledge, one test per file, through the project's library:
// envelope vectors rebuild the canonical message byte for byte (length, id) and parse to the same canonical JSON;
// bond and state fixtures run verifyBond and pledgeState; the malformed-input vector gives its error.
// The vectors' signatures are placeholders (oc-wire-formats §5.3): real ones are tested in shared/pledge-signature.
import { describe, expect, it } from "vitest";
import { canonicalBytes, canonicalJson, type JsonValue } from "../../shared/envelopes/canonical-json";
import {
  type AbandonmentInput,
  abandonmentMessage,
  expiredUnresolvedOutcome,
  type MessageResult,
  messageId,
  type OutcomeInput,
  type OutcomeValue,
  outcomeMessage,
  type ParsedPledgeEnvelope,
  type PledgeEnvelope,
  type PledgeInput,
  parseAbandonmentEnvelope,
  parseOutcomeEnvelope,
  parsePledgeEnvelope,
  pledgeMessage,
  pledgeState,
  type ResolvedBond,
  verifyBond,
  verifyPledgeSignature,
} from "../../shared/envelopes/pledge";
import v01 from "../vectors/oc-pledge/v01-pledge-minimal-chain-state.json";
import v02 from "../vectors/oc-pledge/v02-pledge-stamp-published.json";
import v03 from "../vectors/oc-pledge/v03-pledge-counterparty-signs-bilateral.json";
import v04 from "../vectors/oc-pledge/v04-pledge-http-get-hash.json";
import v05 from "../vectors/oc-pledge/v05-pledge-nostr-event-exists.json";
import v06 from "../vectors/oc-pledge/v06-pledge-dns-record.json";
import v07 from "../vectors/oc-pledge/v07-pledge-vote-resolves.json";
import v08 from "../vectors/oc-pledge/v08-pledge-agent-delegated.json";
import v09 from "../vectors/oc-pledge/v09-pledge-edge-same-time.json";
import v10 from "../vectors/oc-pledge/v10-pledge-block-height-resolved.json";
import v11 from "../vectors/oc-pledge/v11-outcome-kept-deterministic-chain-state.json";
import v12 from "../vectors/oc-pledge/v12-outcome-kept-stamp-published.json";
import v13 from "../vectors/oc-pledge/v13-outcome-kept-counterparty-signs.json";
import v14 from "../vectors/oc-pledge/v14-outcome-broken-http-get-hash.json";
import v15 from "../vectors/oc-pledge/v15-outcome-disputed-contradictory.json";
import v16 from "../vectors/oc-pledge/v16-outcome-expired-unresolved.json";
import v17 from "../vectors/oc-pledge/v17-abandonment-counts-as-broken.json";
import v18 from "../vectors/oc-pledge/v18-bond-valid.json";
import v19 from "../vectors/oc-pledge/v19-bond-insufficient-sats.json";
import v20 from "../vectors/oc-pledge/v20-bond-spent.json";
import v21 from "../vectors/oc-pledge/v21-bilateral-consistent.json";
import v22 from "../vectors/oc-pledge/v22-bilateral-contradictory.json";
import v23 from "../vectors/oc-pledge/v23-state-pending.json";
import v24 from "../vectors/oc-pledge/v24-state-resolvable.json";
import v25 from "../vectors/oc-pledge/v25-state-kept.json";
import v26 from "../vectors/oc-pledge/v26-state-broken-via-abandonment.json";
import v27 from "../vectors/oc-pledge/v27-state-expired-unresolved.json";
import v28 from "../vectors/oc-pledge/v28-empty-nonce-rejected.json";

interface Vector {
  description: string;
  kind: string;
  inputs: Record<string, unknown>;
  expected: Record<string, unknown>;
}

const VECTORS: [string, Vector][] = [
  ["v01-pledge-minimal-chain-state", v01],
  ["v02-pledge-stamp-published", v02],
  ["v03-pledge-counterparty-signs-bilateral", v03],
  ["v04-pledge-http-get-hash", v04],
  ["v05-pledge-nostr-event-exists", v05],
  ["v06-pledge-dns-record", v06],
  ["v07-pledge-vote-resolves", v07],
  ["v08-pledge-agent-delegated", v08],
  ["v09-pledge-edge-same-time", v09],
  ["v10-pledge-block-height-resolved", v10],
  ["v11-outcome-kept-deterministic-chain-state", v11],
  ["v12-outcome-kept-stamp-published", v12],
  ["v13-outcome-kept-counterparty-signs", v13],
  ["v14-outcome-broken-http-get-hash", v14],
  ["v15-outcome-disputed-contradictory", v15],
  ["v16-outcome-expired-unresolved", v16],
  ["v17-abandonment-counts-as-broken", v17],
  ["v18-bond-valid", v18],
  ["v19-bond-insufficient-sats", v19],
  ["v20-bond-spent", v20],
  ["v21-bilateral-consistent", v21],
  ["v22-bilateral-contradictory", v22],
  ["v23-state-pending", v23],
  ["v24-state-resolvable", v24],
  ["v25-state-kept", v25],
  ["v26-state-broken-via-abandonment", v26],
  ["v27-state-expired-unresolved", v27],
  ["v28-empty-nonce-rejected", v28],
];

const encoder = new TextEncoder();

const ENVELOPE_KINDS: Record<
  string,
  {
    idKey: string;
    message(inputs: Record<string, unknown>): MessageResult;
    parse(json: unknown): Promise<ParsedPledgeEnvelope | { ok: false; reason: string; detail: string }>;
  }
> = {
  pledge: {
    idKey: "pledge_id",
    message: (i) => pledgeMessage(i as unknown as PledgeInput),
    parse: parsePledgeEnvelope,
  },
  "pledge-outcome": {
    idKey: "outcome_id",
    message: (i) => outcomeMessage(i as unknown as OutcomeInput),
    parse: parseOutcomeEnvelope,
  },
  "pledge-abandonment": {
    idKey: "abandonment_id",
    message: (i) => abandonmentMessage(i as unknown as AbandonmentInput),
    parse: parseAbandonmentEnvelope,
  },
};

/** The pledges the function fixtures cite by id (bond vectors carry no swearer, only v01's pledge_id). */
const PLEDGES = new Map(
  VECTORS.filter(([, v]) => v.kind === "pledge").map(([, v]) => [v.expected.pledge_id as string, v.inputs]),
);

/** The envelope's canonical inputs: everything but v, kind, id, sig and the unsigned agent fields. */
function inputsOf(kind: string, envelope: Record<string, unknown>): Record<string, unknown> {
  const { v: _v, kind: _k, id: _id, sig: _sig, via_delegation, agent_address, ...rest } = envelope;
  if (kind !== "pledge") return rest;
  const swearer = (rest.swearer as { address: string }).address;
  return { ...rest, swearer, ...(via_delegation !== undefined && { via_delegation, agent_address }) };
}

async function checkEnvelope(vector: Vector): Promise<void> {
  const kind = ENVELOPE_KINDS[vector.kind];
  if (!kind) throw new Error(`no envelope kind ${vector.kind}`);
  const { expected, inputs } = vector;
  const id = expected[kind.idKey] as string;
  const built = kind.message(inputs);
  expect(built).toEqual({ ok: true, message: expected.canonical_message });
  const message = expected.canonical_message as string;
  expect(encoder.encode(message).length).toBe(expected.canonical_message_bytes_len);
  expect(await messageId(message)).toBe(id);

  const envelope = expected.envelope as Record<string, unknown>;
  expect(envelope.id).toBe(id);
  expect(inputsOf(vector.kind, envelope)).toEqual(inputs);
  const parsed = await kind.parse(envelope);
  if (!parsed.ok) throw new Error(`${parsed.reason}: ${parsed.detail}`);
  expect(parsed).toMatchObject({ kind: vector.kind, id, message });
  expect(parsed.canonicalJson).toBe(canonicalJson(envelope as JsonValue));
  expect(`${parsed.canonicalJson}\n`).toBe(canonicalBytes(envelope as JsonValue));

  // Unsigned by design (v11, v12, v14, v16) verifies; a placeholder "AAAA" never does.
  const signature = verifyPledgeSignature(parsed);
  expect(signature.ok).toBe(envelope.sig === null);
}

const CHECKS: Record<string, (vector: Vector) => Promise<void> | void> = {
  pledge: checkEnvelope,
  "pledge-outcome": checkEnvelope,
  "pledge-abandonment": checkEnvelope,
  "bond-verification"({ inputs, expected }) {
    const pledge = PLEDGES.get(inputs.pledge_id as string);
    expect(pledge, "the bond vector cites a pledge vector").toBeDefined();
    const result = verifyBond({
      bond: inputs.bond as PledgeEnvelope["bond"],
      swearer: pledge?.swearer as string,
      attestation: inputs.attestation_resolved as ResolvedBond,
      atBlock: inputs.resolves_at_block as number,
    });
    expect({ ok: result.ok, code: result.code }).toEqual(expected);
  },
  async "state-transition"({ inputs, expected }) {
    const pledge = inputs.pledge as PledgeInput | undefined;
    if (pledge) {
      const built = pledgeMessage(pledge);
      expect(built.ok && (await messageId(built.message))).toBe(inputs.pledge_id);
    }
    const outcome = inputs.outcome_envelope as OutcomeInput | null | undefined;
    if (outcome) expect(outcomeMessage(outcome).ok).toBe(true);
    const abandonment = inputs.abandonment_envelope as AbandonmentInput | null | undefined;
    if (abandonment) expect(abandonmentMessage(abandonment).ok).toBe(true);
    const listed = inputs.outcomes as { author: string; outcome: OutcomeValue }[] | undefined;
    const state = pledgeState({
      pledge,
      outcomes: listed ?? (outcome ? [{ author: outcome.resolved_by, outcome: outcome.outcome }] : []),
      abandoned: Boolean(abandonment),
      chain: inputs.chain_height === undefined ? undefined : { height: inputs.chain_height as number },
      now: Date.parse(inputs.now as string),
    });
    expect(state).toBe(expected.state);
  },
  async "malformed-input"({ inputs, expected }) {
    const built = pledgeMessage(inputs as unknown as PledgeInput);
    expect(built).toEqual({ ok: false, code: expected.error, detail: expected.reason });
    // The same inputs as a received envelope cannot form a canonical message.
    const { swearer, ...rest } = inputs;
    const envelope = {
      v: 1,
      kind: "pledge",
      id: "0".repeat(64),
      swearer: { address: swearer, alg: "bip322" },
      ...rest,
      sig: { alg: "bip322", pubkey: swearer, value: "AAAA" },
    };
    expect(await parsePledgeEnvelope(envelope)).toMatchObject({
      ok: false,
      reason: "canonicalization_failed",
      code: expected.error,
    });
  },
};

describe("OC Pledge v1 conformance vectors", () => {
  it.each(VECTORS)("%s", async (_name, vector) => {
    const check = CHECKS[vector.kind];
    expect(check, `no check for kind ${vector.kind}`).toBeDefined();
    await check?.(vector);
  });

  it("v16 is what expiredUnresolvedOutcome computes for v03's pledge", async () => {
    const outcome = await expiredUnresolvedOutcome(v03.expected.envelope as unknown as PledgeEnvelope);
    expect(outcome.id).toBe(v16.expected.outcome_id);
    expect(outcome.canonicalJson).toBe(canonicalJson(v16.expected.envelope as JsonValue));
  });

  it("cross-links: outcomes and the abandonment cite the pledge vectors' ids", () => {
    expect(v11.inputs.pledge_id).toBe(v01.expected.pledge_id);
    expect(v12.inputs.pledge_id).toBe(v02.expected.pledge_id);
    expect([v13, v15, v16].map((v) => v.inputs.pledge_id)).toEqual(Array(3).fill(v03.expected.pledge_id));
    expect(v14.inputs.pledge_id).toBe(v04.expected.pledge_id);
    expect(v17.inputs.pledge_id).toBe(v01.expected.pledge_id);
  });

  it("v17's canonical JSON opens as oc-wire-formats §4.5 shows", async () => {
    const parsed = await parseAbandonmentEnvelope(v17.expected.envelope);
    expect(parsed.ok && parsed.canonicalJson).toMatch(
      /^\{"abandoned_at":"2026-08-01T12:00:00Z","id":"8d6a[0-9a-f]{60}","kind":"pledge-abandonment","pledge_id":/,
    );
  });
});
