// OC Pledge parsers: each refusal once with its reason and code (shape → invalid_body, signed values →
// canonicalization_failed, declared id → id_mismatch), the grammar each mechanism accepts, and flatFields.
import { describe, expect, it } from "vitest";
import {
  abandonmentMessage,
  flatFields,
  messageId,
  type OutcomeInput,
  outcomeMessage,
  type PledgeInput,
  parseAbandonmentEnvelope,
  parseOutcomeEnvelope,
  parsePledgeEnvelope,
  pledgeMessage,
} from "../../shared/envelopes/pledge";
import v01 from "../vectors/oc-pledge/v01-pledge-minimal-chain-state.json";
import v08 from "../vectors/oc-pledge/v08-pledge-agent-delegated.json";
import v09 from "../vectors/oc-pledge/v09-pledge-edge-same-time.json";
import v11 from "../vectors/oc-pledge/v11-outcome-kept-deterministic-chain-state.json";
import v13 from "../vectors/oc-pledge/v13-outcome-kept-counterparty-signs.json";
import v17 from "../vectors/oc-pledge/v17-abandonment-counts-as-broken.json";

type Json = Record<string, unknown>;
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** v01's envelope with one change, its id recomputed when the change still forms a message. */
async function pledgeWith(change: (envelope: Json) => void): Promise<Json> {
  const envelope = clone(v01.expected.envelope) as Json;
  change(envelope);
  const { swearer, ...rest } = envelope;
  const built = pledgeMessage({ ...rest, swearer: (swearer as { address: string }).address } as unknown as PledgeInput);
  if (built.ok) envelope.id = await messageId(built.message);
  return envelope;
}

async function outcomeWith(change: (envelope: Json) => void): Promise<Json> {
  const envelope = clone(v13.expected.envelope) as Json;
  change(envelope);
  const built = outcomeMessage(envelope as unknown as OutcomeInput);
  if (built.ok) envelope.id = await messageId(built.message);
  return envelope;
}

const set = (path: string, value: unknown) => (envelope: Json) => {
  const keys = path.split(".");
  const last = keys.pop() as string;
  const target = keys.reduce((node, key) => node[key] as Json, envelope);
  if (value === undefined) delete target[last];
  else target[last] = value;
};

describe("parsePledgeEnvelope refusals", () => {
  const cases: [string, (envelope: Json) => void, string, string][] = [
    ["version 2", set("v", 2), "invalid_body", "E_UNSUPPORTED_VERSION"],
    ["another kind", set("kind", "pledge-outcome"), "invalid_body", "E_PLEDGE_MALFORMED"],
    ["a missing field", set("nonce", undefined), "invalid_body", "E_PLEDGE_MALFORMED"],
    ["a number sent as a string", set("bond.min_sats", "500000"), "invalid_body", "E_PLEDGE_MALFORMED"],
    ["an unknown key inside a block", set("bond.max_sats", 1), "invalid_body", "E_PLEDGE_MALFORMED"],
    ["swearer.alg other than bip322", set("swearer.alg", "ecdsa"), "invalid_body", "E_PLEDGE_MALFORMED"],
    ["sig.alg other than bip322", set("sig.alg", "schnorr"), "invalid_body", "E_PLEDGE_MALFORMED"],
    ["sig.pubkey not the swearer", set("sig.pubkey", "bc1qother"), "invalid_body", "E_PLEDGE_MALFORMED"],
    ["agent_address without via_delegation", set("agent_address", "bc1qagent"), "invalid_body", "E_PLEDGE_MALFORMED"],
    ["empty nonce (v28)", set("nonce", ""), "canonicalization_failed", "E_PLEDGE_MALFORMED"],
    [
      "uppercase nonce",
      set("nonce", "0123456789ABCDEF0123456789ABCDEF"),
      "canonicalization_failed",
      "E_PLEDGE_MALFORMED",
    ],
    ["a two-line proposition", set("proposition", "one\ntwo"), "canonicalization_failed", "E_PLEDGE_MALFORMED"],
    [
      "a 513-byte proposition",
      set("proposition", `${"é".repeat(256)}x`),
      "canonicalization_failed",
      "E_PLEDGE_MALFORMED",
    ],
    ["an unknown mechanism", set("resolution.mechanism", "teapot"), "canonicalization_failed", "E_RESOLUTION_UNKNOWN"],
    [
      "self_proof",
      set("resolution.mechanism", "self_proof"),
      "canonicalization_failed",
      "E_RESOLUTION_NONDETERMINISTIC",
    ],
    [
      "a query outside the grammar",
      set("resolution.query", "I say so"),
      "canonicalization_failed",
      "E_RESOLUTION_NONDETERMINISTIC",
    ],
    [
      "both time and block",
      set("resolves_at.time", "2026-09-01T00:00:00Z"),
      "canonicalization_failed",
      "E_PLEDGE_MALFORMED",
    ],
    ["neither time nor block", set("resolves_at.block", undefined), "canonicalization_failed", "E_PLEDGE_MALFORMED"],
    ["a negative block", set("resolves_at.block", -1), "canonicalization_failed", "E_PLEDGE_MALFORMED"],
    [
      "fractional seconds",
      set("expires_at", "2026-12-31T00:00:00.000Z"),
      "canonicalization_failed",
      "E_PLEDGE_MALFORMED",
    ],
    ["an offset", set("sworn_at", "2026-04-24T18:30:00+00:00"), "canonicalization_failed", "E_PLEDGE_MALFORMED"],
    ["February 30", set("sworn_at", "2026-02-30T00:00:00Z"), "canonicalization_failed", "E_PLEDGE_MALFORMED"],
    [
      "uppercase attestation id",
      set("bond.attestation_id", "A".repeat(64)),
      "canonicalization_failed",
      "E_PLEDGE_MALFORMED",
    ],
    ["fractional min_days", set("bond.min_days", 1.5), "canonicalization_failed", "E_PLEDGE_MALFORMED"],
    ["counterparty the text null", set("counterparty", "null"), "canonicalization_failed", "E_PLEDGE_MALFORMED"],
    [
      "a refused dispute mechanism",
      set("dispute.mechanism", "trust_score"),
      "canonicalization_failed",
      "E_PLEDGE_MALFORMED",
    ],
    [
      "remediation other than breach_recorded",
      set("remediation", "slashing"),
      "canonicalization_failed",
      "E_PLEDGE_MALFORMED",
    ],
    [
      "a swearer with a space",
      (e) => {
        set("swearer.address", "bc1q alice")(e);
        set("sig.pubkey", "bc1q alice")(e);
      },
      "canonicalization_failed",
      "E_PLEDGE_MALFORMED",
    ],
  ];
  it.each(cases)("%s", async (_name, change, reason, code) => {
    expect(await parsePledgeEnvelope(await pledgeWith(change))).toMatchObject({ ok: false, reason, code });
  });

  it("not an object", async () => {
    expect(await parsePledgeEnvelope([v01.expected.envelope])).toMatchObject({ ok: false, reason: "invalid_body" });
  });

  it("counterparty_signs without a counterparty", async () => {
    const envelope = await pledgeWith((e) => {
      set("resolution.mechanism", "counterparty_signs")(e);
      set("resolution.query", "counterparty(bc1qbob) signs outcome over pledge_id")(e);
    });
    expect(await parsePledgeEnvelope(envelope)).toMatchObject({ reason: "canonicalization_failed" });
  });

  it("expires_at before a time-typed resolves_at (equal is v09, accepted)", async () => {
    const envelope = await pledgeWith((e) => {
      e.resolves_at = { time: "2027-01-01T00:00:00Z" };
    });
    expect(await parsePledgeEnvelope(envelope)).toMatchObject({ reason: "canonicalization_failed" });
    expect(await parsePledgeEnvelope(v09.expected.envelope)).toMatchObject({ ok: true });
  });

  it("a declared id that is not the recomputed one", async () => {
    const envelope = clone(v01.expected.envelope);
    envelope.proposition = "I will not spend the bonded UTXO before block 920001.";
    expect(await parsePledgeEnvelope(envelope)).toMatchObject({ reason: "id_mismatch", code: "E_PLEDGE_BAD_ID" });
  });

  it("agent fields: hex delegation id, agent_address present and not the swearer, sig.pubkey one of the two", async () => {
    const agentWith = (change: (envelope: Json) => void) => {
      const envelope = clone(v08.expected.envelope) as Json;
      change(envelope);
      return parsePledgeEnvelope(envelope);
    };
    expect(await agentWith(() => {})).toMatchObject({ ok: true });
    expect(await agentWith(set("sig.pubkey", v08.inputs.agent_address))).toMatchObject({ ok: true });
    for (const change of [
      set("via_delegation", "xyz"),
      set("agent_address", undefined),
      set("agent_address", v08.inputs.swearer),
      set("sig.pubkey", "bc1qsomeoneelse"),
    ]) {
      expect(await agentWith(change)).toMatchObject({ ok: false, reason: "invalid_body", code: "E_PLEDGE_MALFORMED" });
    }
  });

  it("keeps unknown top-level fields (SPEC §3.7) in the envelope and its canonical JSON", async () => {
    const parsed = await parsePledgeEnvelope({ ...v01.expected.envelope, relay_hint: "wss://relay.example" });
    expect(parsed.ok && parsed.canonicalJson).toContain('"relay_hint":"wss://relay.example"');
  });
});

describe("resolution grammar", () => {
  const ADDR = "bc1qalice000000000000000000000000000000000";
  const HEX = "ab".repeat(32);
  const accepted: [string, string][] = [
    ["chain_state", `block(920000).hash.startsWith(0000) AND block(920001).exists`],
    ["chain_state", `tx(${HEX}).confirmed AND tx(${HEX}).confirmations >= 6`],
    ["chain_state", `address(${ADDR}).balance < 10 AND address(${ADDR}).utxo_count == 1`],
    ["chain_state", `address(${ADDR}).balance >= 1000000 AT block(925000)`],
    ["counterparty_signs", `counterparty(${ADDR}) signs outcome over pledge_id`],
    ["nostr_event_exists", `kind=1 author=${HEX} tag(t)=x created_at_before=2026-05-30T00:00:00Z`],
    ["stamp_published", `stamp(content_hash=sha256:${HEX}, signer=${ADDR})`],
    ["http_get_hash", `GET https://example.org/a body_sha256 == ${HEX}`],
    ["dns_record", "CNAME www.example.com == example.net"],
    ["vote_resolves", `poll_id=${HEX} option=kept threshold=1.0`],
  ];
  it.each(accepted)("%s accepts %s", async (mechanism, query) => {
    const envelope = await pledgeWith((e) => {
      e.resolution = { mechanism, query };
      e.counterparty = ADDR;
    });
    expect(await parsePledgeEnvelope(envelope)).toMatchObject({ ok: true });
  });

  const refused: [string, string][] = [
    ["chain_state", `address(${ADDR}).balance >= lots`],
    ["chain_state", `block(1).exists OR block(2).exists`],
    ["http_get_hash", `GET http://example.org/a body_sha256 == ${HEX}`],
    ["dns_record", "SRV _x.example.com == y"],
    ["vote_resolves", `poll_id=${HEX} option=kept threshold=1.5`],
    ["stamp_published", `stamp(content_hash=${HEX}, signer=${ADDR})`],
  ];
  it.each(refused)("%s refuses %s", async (mechanism, query) => {
    const envelope = await pledgeWith((e) => {
      e.resolution = { mechanism, query };
    });
    expect(await parsePledgeEnvelope(envelope)).toMatchObject({ code: "E_RESOLUTION_NONDETERMINISTIC" });
  });
});

describe("parseOutcomeEnvelope refusals", () => {
  const cases: [string, (envelope: Json) => void, string, string][] = [
    ["sig absent", set("sig", undefined), "invalid_body", "E_OUTCOME_MALFORMED"],
    [
      "sig.pubkey not resolved_by",
      set("sig.pubkey", "bc1qstranger"),
      "invalid_body",
      "E_OUTCOME_RESOLVER_UNAUTHORIZED",
    ],
    [
      "a deterministic outcome carrying a sig",
      set("resolved_by", "deterministic"),
      "invalid_body",
      "E_OUTCOME_MALFORMED",
    ],
    ["an unknown outcome value", set("outcome", "maybe"), "canonicalization_failed", "E_OUTCOME_MALFORMED"],
    [
      "resolved_by neither address nor deterministic",
      set("resolved_by", "a b"),
      "invalid_body",
      "E_OUTCOME_RESOLVER_UNAUTHORIZED",
    ],
    [
      "an unknown evidence mechanism",
      set("evidence.mechanism", "oracle_feed"),
      "canonicalization_failed",
      "E_OUTCOME_MALFORMED",
    ],
    ["an empty witness", set("evidence.witness", ""), "canonicalization_failed", "E_OUTCOME_MALFORMED"],
    ["a bad window end", set("dispute_window_ends_at", "2026-06-09"), "canonicalization_failed", "E_OUTCOME_MALFORMED"],
  ];
  it.each(cases)("%s", async (_name, change, reason, code) => {
    expect(await parseOutcomeEnvelope(await outcomeWith(change))).toMatchObject({ ok: false, reason, code });
  });

  it("an unsigned outcome with an unreadable resolved_by", async () => {
    const envelope = clone(v11.expected.envelope) as Json;
    envelope.resolved_by = "not an address";
    expect(await parseOutcomeEnvelope(envelope)).toMatchObject({ reason: "canonicalization_failed" });
  });

  it("a declared id that is not the recomputed one", async () => {
    const envelope = { ...v11.expected.envelope, outcome: "broken" };
    expect(await parseOutcomeEnvelope(envelope)).toMatchObject({ reason: "id_mismatch", code: "E_OUTCOME_BAD_ID" });
  });
});

describe("parseAbandonmentEnvelope refusals", () => {
  async function abandonmentWith(change: (envelope: Json) => void): Promise<Json> {
    const envelope = clone(v17.expected.envelope) as Json;
    change(envelope);
    const built = abandonmentMessage(envelope as never);
    if (built.ok) envelope.id = await messageId(built.message);
    return envelope;
  }
  const cases: [string, (envelope: Json) => void, string, string][] = [
    ["sig null", set("sig", null), "invalid_body", "E_ABANDONMENT_MALFORMED"],
    ["a 281-byte reason", set("reason", "x".repeat(281)), "canonicalization_failed", "E_ABANDONMENT_MALFORMED"],
    ["an empty reason", set("reason", ""), "canonicalization_failed", "E_ABANDONMENT_MALFORMED"],
    ["a short pledge id", set("pledge_id", "abc"), "canonicalization_failed", "E_ABANDONMENT_MALFORMED"],
    [
      "a lowercase z",
      set("abandoned_at", "2026-08-01T12:00:00z"),
      "canonicalization_failed",
      "E_ABANDONMENT_MALFORMED",
    ],
  ];
  it.each(cases)("%s", async (_name, change, reason, code) => {
    expect(await parseAbandonmentEnvelope(await abandonmentWith(change))).toMatchObject({ ok: false, reason, code });
  });

  it("a declared id that is not the recomputed one", async () => {
    const envelope = { ...v17.expected.envelope, reason: "changed my mind" };
    expect(await parseAbandonmentEnvelope(envelope)).toMatchObject({
      reason: "id_mismatch",
      code: "E_ABANDONMENT_BAD_ID",
    });
  });
});

describe("flatFields", () => {
  it("pledge, outcome and abandonment", async () => {
    const pledge = await parsePledgeEnvelope(v08.expected.envelope);
    const outcome = await parseOutcomeEnvelope(v11.expected.envelope);
    const abandonment = await parseAbandonmentEnvelope(v17.expected.envelope);
    if (!pledge.ok || !outcome.ok || !abandonment.ok) throw new Error("vectors parse");
    expect(flatFields(pledge)).toMatchObject({
      id: v08.expected.pledge_id,
      swearer: v08.inputs.swearer,
      agent_address: v08.inputs.agent_address,
      via_delegation: v08.inputs.via_delegation,
      expires_at: "2027-01-15T00:00:00Z",
      resolves_at: null,
      resolves_at_block: 925000,
      mechanism: "chain_state",
      bond_min_sats: 1000000,
    });
    expect(flatFields(outcome)).toEqual({
      id: v11.expected.outcome_id,
      pledge_id: v01.expected.pledge_id,
      outcome: "kept",
      resolved_at: "2026-12-15T12:00:00Z",
      resolved_by: "deterministic",
      mechanism: "chain_state",
      dispute_window_ends_at: "2026-12-22T12:00:00Z",
    });
    expect(flatFields(abandonment)).toEqual({
      id: v17.expected.abandonment_id,
      pledge_id: v01.expected.pledge_id,
      abandoned_at: "2026-08-01T12:00:00Z",
      reason: v17.inputs.reason,
      signer_address: "bc1qalice000000000000000000000000000000000",
    });
  });
});
