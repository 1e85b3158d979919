// Pledge states: every move of the fleet's status table and every refused move out of a final state, the
// protocol classification, the rules an outcome or abandonment must meet, and the deterministic expiry outcome.
import { describe, expect, it } from "vitest";
import {
  checkAbandonment,
  checkOutcome,
  createAbandonmentEnvelope,
  createOutcomeEnvelope,
  expiredUnresolvedOutcome,
  isExpiryDue,
  nextPledgeStatus,
  type OutcomeInput,
  type OutcomeValue,
  type PledgeEnvelope,
  type PledgeEvent,
  type PledgeStatus,
  parseOutcomeEnvelope,
  pledgeState,
  verifyPledgeSignature,
} from "../../shared/envelopes/pledge";
import v01 from "../vectors/oc-pledge/v01-pledge-minimal-chain-state.json";
import v03 from "../vectors/oc-pledge/v03-pledge-counterparty-signs-bilateral.json";
import v09 from "../vectors/oc-pledge/v09-pledge-edge-same-time.json";
import v11 from "../vectors/oc-pledge/v11-outcome-kept-deterministic-chain-state.json";
import v16 from "../vectors/oc-pledge/v16-outcome-expired-unresolved.json";

const at = (iso: string) => Date.parse(iso);
const CHAIN_PLEDGE = v01.expected.envelope as unknown as PledgeEnvelope;
const BILATERAL = v03.expected.envelope as unknown as PledgeEnvelope;
const SWEARER = BILATERAL.swearer.address;
const COUNTERPARTY = BILATERAL.counterparty as string;
const BEFORE_EXPIRY = at("2026-06-05T00:00:00Z");
const AFTER_EXPIRY = at("2026-06-16T00:00:00Z");
const placeholder = (address: string) => ({ address, sign: () => "AAAA" });

describe("nextPledgeStatus (service-spec Pledge table)", () => {
  it.each<OutcomeValue>(["kept", "broken", "disputed", "expired_unresolved"])("pending → %s on an outcome", (value) => {
    expect(nextPledgeStatus("pending", { type: "outcome", outcome: value })).toEqual({ ok: true, status: value });
  });

  it("pending → expired_unresolved by the reconciler; pending → abandoned", () => {
    expect(nextPledgeStatus("pending", { type: "expiry" })).toEqual({ ok: true, status: "expired_unresolved" });
    expect(nextPledgeStatus("pending", { type: "abandonment" })).toEqual({ ok: true, status: "abandoned" });
  });

  const finals: PledgeStatus[] = ["kept", "broken", "disputed", "expired_unresolved", "abandoned"];
  const events: PledgeEvent[] = [{ type: "outcome", outcome: "broken" }, { type: "expiry" }, { type: "abandonment" }];
  it.each(finals.flatMap((status) => events.map((event) => [status, event.type, event] as const)))(
    "%s refuses %s with pledge_not_pending",
    (status, _type, event) => {
      expect(nextPledgeStatus(status, event)).toMatchObject({ ok: false, reason: "pledge_not_pending", code: null });
    },
  );
});

describe("pledgeState (PLG SPEC §4.4)", () => {
  const base = { outcomes: [], abandoned: false };
  it("abandonment is broken even against a kept outcome", () => {
    const outcomes = [{ author: "deterministic", outcome: "kept" as const }];
    expect(pledgeState({ ...base, outcomes, abandoned: true, now: 0 })).toBe("broken");
  });

  it("a block-typed pledge: pending without chain data or before the block, resolvable once mined", () => {
    const now = at("2026-06-01T00:00:00Z");
    const pledge = CHAIN_PLEDGE;
    expect(pledgeState({ ...base, pledge, now })).toBe("pending");
    expect(pledgeState({ ...base, pledge, now, chain: { height: 919999 } })).toBe("pending");
    expect(pledgeState({ ...base, pledge, now, chain: { height: 920000 } })).toBe("resolvable");
    expect(pledgeState({ ...base, pledge, now, chain: { height: 1, blockTimes: { 920000: now + 1 } } })).toBe(
      "pending",
    );
    expect(pledgeState({ ...base, pledge, now, chain: { height: 920005, tipTime: now - 1 } })).toBe("resolvable");
  });

  it("v09: resolves_at == expires_at goes straight to expired_unresolved at that instant", () => {
    const pledge = v09.expected.envelope as unknown as PledgeEnvelope;
    expect(pledgeState({ ...base, pledge, now: at("2026-05-31T23:59:59Z") })).toBe("pending");
    expect(pledgeState({ ...base, pledge, now: at("2026-06-01T00:00:00Z") })).toBe("expired_unresolved");
  });

  it("an outcome outlives expiry; agreeing outcomes keep their value, disagreeing ones are disputed", () => {
    const kept = { author: COUNTERPARTY, outcome: "kept" as const };
    expect(pledgeState({ ...base, pledge: BILATERAL, outcomes: [kept], now: AFTER_EXPIRY })).toBe("kept");
    const both = [kept, { author: SWEARER, outcome: "broken" as const }];
    expect(pledgeState({ ...base, pledge: BILATERAL, outcomes: both, now: BEFORE_EXPIRY })).toBe("disputed");
  });
});

function counterpartyOutcome(change: Partial<OutcomeInput> = {}): OutcomeInput {
  return {
    pledge_id: BILATERAL.id,
    outcome: "kept",
    resolved_at: "2026-06-02T10:00:00Z",
    resolved_by: COUNTERPARTY,
    evidence: { mechanism: "counterparty_signs", result: "kept", witness: "counterparty_sig=x" },
    dispute_window_ends_at: "2026-06-09T10:00:00Z",
    ...change,
  };
}

async function outcomeCheck(
  change: Partial<OutcomeInput>,
  pledge = BILATERAL,
  status: PledgeStatus = "pending",
  now = BEFORE_EXPIRY,
) {
  const input = counterpartyOutcome(change);
  const signer = input.resolved_by === "deterministic" ? undefined : placeholder(input.resolved_by);
  return checkOutcome(await createOutcomeEnvelope(input, signer), pledge, status, now);
}

describe("checkOutcome", () => {
  it("the counterparty resolves a pending pledge to its value", async () => {
    expect(await outcomeCheck({})).toEqual({ ok: true, status: "kept" });
    expect(await outcomeCheck({ outcome: "disputed" })).toEqual({ ok: true, status: "disputed" });
  });

  it("an outcome citing another pledge or another mechanism is invalid_body", async () => {
    expect(await outcomeCheck({ pledge_id: CHAIN_PLEDGE.id })).toMatchObject({ reason: "invalid_body" });
    const evidence = { mechanism: "chain_state", result: "true", witness: "chain_height=1" };
    expect(await outcomeCheck({ evidence })).toMatchObject({ reason: "invalid_body", code: "E_OUTCOME_MALFORMED" });
  });

  it("resolvers: a stranger never, the swearer only for broken, a named oracle yes", async () => {
    expect(await outcomeCheck({ resolved_by: "bc1qstranger" })).toMatchObject({
      ok: false,
      reason: "resolver_unauthorized",
      code: "E_OUTCOME_RESOLVER_UNAUTHORIZED",
    });
    expect(await outcomeCheck({ resolved_by: SWEARER })).toMatchObject({ reason: "resolver_unauthorized" });
    expect(await outcomeCheck({ resolved_by: SWEARER, outcome: "broken" })).toEqual({ ok: true, status: "broken" });
    const oracle = "bc1qoracle";
    const withOracle = { ...BILATERAL, dispute: { mechanism: "named_oracle", params: `oracle=${oracle}` } };
    expect(await outcomeCheck({ resolved_by: oracle }, withOracle)).toEqual({ ok: true, status: "kept" });
  });

  it("deterministic: accepted for chain_state, refused as kept for counterparty_signs", async () => {
    const input = v11.inputs as unknown as OutcomeInput;
    const chain = await createOutcomeEnvelope(input);
    expect(checkOutcome(chain, CHAIN_PLEDGE, "pending", at("2026-12-16T00:00:00Z"))).toEqual({
      ok: true,
      status: "kept",
    });
    expect(await outcomeCheck({ resolved_by: "deterministic" })).toMatchObject({ reason: "resolver_unauthorized" });
  });

  it("a pledge no longer pending refuses with pledge_not_pending", async () => {
    expect(await outcomeCheck({}, BILATERAL, "kept")).toMatchObject({ reason: "pledge_not_pending" });
  });

  it("at or past expires_at only expired_unresolved, and that one not before", async () => {
    expect(await outcomeCheck({}, BILATERAL, "pending", at(BILATERAL.expires_at))).toMatchObject({
      reason: "pledge_expired",
    });
    expect(await outcomeCheck({ resolved_at: "2026-06-15T00:00:00Z" })).toMatchObject({ reason: "pledge_expired" });
    const early = await parseOutcomeEnvelope(v16.expected.envelope);
    if (!early.ok) throw new Error(early.detail);
    expect(checkOutcome(early, BILATERAL, "pending", BEFORE_EXPIRY)).toMatchObject({ reason: "pledge_not_expired" });
    expect(checkOutcome(early, BILATERAL, "pending", AFTER_EXPIRY)).toEqual({ ok: true, status: "expired_unresolved" });
  });
});

describe("checkAbandonment", () => {
  const input = { pledge_id: BILATERAL.id, abandoned_at: "2026-05-01T00:00:00Z", reason: "cannot deliver" };
  const check = async (signer: string, change = {}, status: PledgeStatus = "pending", now = BEFORE_EXPIRY) =>
    checkAbandonment(
      await createAbandonmentEnvelope({ ...input, ...change }, placeholder(signer)),
      BILATERAL,
      status,
      now,
    );

  it("the swearer abandons a pending pledge", async () => {
    expect(await check(SWEARER)).toEqual({ ok: true, status: "abandoned" });
  });
  it("anyone else, the agent included, is signer_must_be_swearer", async () => {
    expect(await check(COUNTERPARTY)).toMatchObject({
      reason: "signer_must_be_swearer",
      code: "E_ABANDONMENT_BAD_SIG",
    });
  });
  it("another pledge's id, or abandoned_at before sworn_at, is invalid_body", async () => {
    expect(await check(SWEARER, { pledge_id: CHAIN_PLEDGE.id })).toMatchObject({ reason: "invalid_body" });
    expect(await check(SWEARER, { abandoned_at: "2026-04-01T00:00:00Z" })).toMatchObject({ reason: "invalid_body" });
  });
  it("not pending → pledge_not_pending; past expiry → pledge_expired", async () => {
    expect(await check(SWEARER, {}, "abandoned")).toMatchObject({ reason: "pledge_not_pending" });
    expect(await check(SWEARER, {}, "pending", AFTER_EXPIRY)).toMatchObject({ reason: "pledge_expired" });
  });
});

describe("expiredUnresolvedOutcome", () => {
  it("is a function of the pledge: same input, same id (v16), unsigned and acceptable", async () => {
    const first = await expiredUnresolvedOutcome(BILATERAL);
    const again = await expiredUnresolvedOutcome(BILATERAL, "2026-06-15T00:00:01Z");
    expect(first.id).toBe(v16.expected.outcome_id);
    expect(again.canonicalJson).toBe(first.canonicalJson);
    const parsed = await parseOutcomeEnvelope(JSON.parse(first.canonicalJson));
    if (!parsed.ok) throw new Error(parsed.detail);
    expect(verifyPledgeSignature(parsed)).toEqual({ ok: true, signer: null });
    expect(checkOutcome(parsed, BILATERAL, "pending", AFTER_EXPIRY)).toEqual({
      ok: true,
      status: "expired_unresolved",
    });
  });

  it("another resolvedAt is another outcome; one before expires_at throws", async () => {
    const later = await expiredUnresolvedOutcome(BILATERAL, "2026-06-16T00:00:00Z");
    expect(later.id).not.toBe(v16.expected.outcome_id);
    expect(later.envelope).toMatchObject({
      resolved_at: "2026-06-16T00:00:00Z",
      dispute_window_ends_at: "2026-06-16T00:00:00Z",
    });
    await expect(expiredUnresolvedOutcome(BILATERAL, "2026-06-14T00:00:00Z")).rejects.toThrow(RangeError);
  });

  it("other mechanisms carry their empty witness", async () => {
    const { envelope } = await expiredUnresolvedOutcome(CHAIN_PLEDGE);
    expect(envelope).toMatchObject({
      pledge_id: CHAIN_PLEDGE.id,
      outcome: "expired_unresolved",
      resolved_at: "2026-12-31T00:00:01Z",
      resolved_by: "deterministic",
      evidence: { mechanism: "chain_state", result: "no_outcome_received", witness: "chain_height=" },
      sig: null,
    });
  });

  it("isExpiryDue: pending and at or past expires_at", () => {
    expect(isExpiryDue(BILATERAL, "pending", at(BILATERAL.expires_at))).toBe(true);
    expect(isExpiryDue(BILATERAL, "pending", BEFORE_EXPIRY)).toBe(false);
    expect(isExpiryDue(BILATERAL, "kept", AFTER_EXPIRY)).toBe(false);
  });
});
