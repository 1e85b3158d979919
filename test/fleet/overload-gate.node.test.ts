// The registration gate's decision (workers/fleet/src/overload/gate.ts), with no worker: a registration is refused
// when the wait it would have (in flight / the rate they finish at) passes the budget or the isolate holds its
// ceiling, never while it holds fewer than the floor; and D1's "not now" texts (shared/db/d1-unavailable.ts).
import { describe, expect, it } from "vitest";
import { d1Unavailable, overloadedByD1 } from "../../shared/db/d1-unavailable";
import {
  AdmissionGate,
  RATE_WINDOW_MS,
  SHED_LIMITS,
  STALE_MS,
  shedLimits,
} from "../../workers/fleet/src/overload/gate";
import { isRegistration } from "../../workers/fleet/src/overload/shed";

const LIMITS = { floor: 4, ceiling: 200, budgetMs: 500 };

/**
 * A gate busy without a pause for the last two seconds (one registration held in flight throughout) that finished
 * `perSecond` others in each of them, ending at `now`.
 */
function gateAt(perSecond: number, now: number): AdmissionGate {
  const gate = new AdmissionGate();
  expect(gate.enter(now - 2 * RATE_WINDOW_MS, LIMITS).admitted).toBe(true);
  for (let i = 0; i < 2 * perSecond; i++) {
    const at = now - 2 * RATE_WINDOW_MS + (i * RATE_WINDOW_MS) / perSecond;
    gate.leave(admit(gate, at), at);
  }
  return gate;
}

/** Admits one more at `now` (expected to pass): its ticket. */
function admit(gate: AdmissionGate, now: number): number {
  const admission = gate.enter(now, LIMITS);
  if (!admission.admitted) throw new Error(`refused: ${JSON.stringify(admission)}`);
  return admission.ticket;
}

/** Admits `n` more at `now` (each expected to pass): their tickets. */
const fill = (gate: AdmissionGate, n: number, now: number) => Array.from({ length: n }, () => admit(gate, now));

describe("admission gate", () => {
  it("admits while the predicted wait is within the budget, refuses past it", () => {
    const now = 10_000_000;
    // 100 finished a busy second: 50 in flight wait 500 ms, the budget; 51 wait 510 ms.
    const gate = gateAt(100, now);
    expect(gate.rate(now)).toBeCloseTo(0.1);
    const [one] = fill(gate, 50, now);
    expect(gate.inFlight).toBe(51);
    const refused = gate.enter(now, LIMITS);
    expect(refused).toMatchObject({ admitted: false, why: "wait", predictedWaitMs: 510 });
    expect(gate.inFlight).toBe(51);
    // One finishes: the wait is back within the budget.
    gate.leave(one as number, now);
    expect(gate.enter(now, LIMITS).admitted).toBe(true);
  });

  it("a faster isolate holds more in flight for the same budget", () => {
    const now = 10_000_000;
    const gate = gateAt(400, now);
    fill(gate, 150, now);
    expect(gate.enter(now, LIMITS).admitted).toBe(true);
  });

  it("a quiet isolate's rate is per busy millisecond: what it could do, not how little it was asked", () => {
    const gate = new AdmissionGate();
    // Ten a second, each in flight 10 ms, idle between.
    for (let i = 0; i < 20; i++) {
      const at = 1_000_000 + i * 100;
      gate.leave(admit(gate, at), at + 10);
    }
    expect(gate.rate(1_002_000)).toBeCloseTo(0.1, 1);
  });

  it("admits a burst (below the ceiling) until the isolate has been busy for the budget; stalled, refuses", () => {
    const gate = new AdmissionGate();
    fill(gate, LIMITS.floor + 40, 1_000);
    expect(gate.enter(1_000 + LIMITS.budgetMs - 1, LIMITS).admitted).toBe(true);
    // Busy for the budget and nothing finished: no rate to wait on.
    expect(gate.enter(1_000 + LIMITS.budgetMs, LIMITS)).toMatchObject({
      admitted: false,
      why: "wait",
      predictedWaitMs: Infinity,
    });
  });

  it("refuses at the ceiling whatever the rate", () => {
    const now = 10_000_000;
    const gate = gateAt(1_000, now);
    fill(gate, LIMITS.ceiling - 1, now);
    expect(gate.enter(now, LIMITS)).toMatchObject({ admitted: false, why: "ceiling" });
    expect(new AdmissionGate().enter(now, { ...LIMITS, ceiling: 0, floor: 0 })).toMatchObject({ why: "ceiling" });
  });

  it("forgets old completions: nothing finished for two windows, busy all along, refuses past the floor", () => {
    const now = 10_000_000;
    const gate = gateAt(100, now);
    fill(gate, LIMITS.floor, now);
    expect(gate.enter(now, LIMITS).admitted).toBe(true);
    expect(gate.rate(now + 2 * RATE_WINDOW_MS)).toBe(0);
    expect(gate.enter(now + 2 * RATE_WINDOW_MS, LIMITS)).toMatchObject({ admitted: false, why: "wait" });
  });

  it("an idle isolate starts afresh: the busy period begins with the next registration", () => {
    const gate = new AdmissionGate();
    for (const ticket of fill(gate, LIMITS.floor, 1_000)) gate.leave(ticket, 1_000 + LIMITS.budgetMs);
    expect(gate.inFlight).toBe(0);
    fill(gate, LIMITS.floor + 10, 60_000);
  });

  it("forgets a registration gone without leaving (a client that disconnected) after STALE_MS, as not finished", () => {
    const gate = new AdmissionGate();
    const [lost] = fill(gate, LIMITS.floor + 10, 1_000);
    expect(gate.enter(1_000 + LIMITS.budgetMs, LIMITS).admitted).toBe(false);
    expect(gate.inFlight).toBe(LIMITS.floor + 10);
    // Still nothing finished, but none of them is in flight any more: the isolate starts afresh.
    expect(gate.enter(1_000 + STALE_MS, LIMITS).admitted).toBe(true);
    expect(gate.inFlight).toBe(1);
    expect(gate.rate(1_000 + STALE_MS)).toBe(0);
    // Its late leave (the ticket forgotten) counts nothing.
    gate.leave(lost as number, 1_000 + STALE_MS);
    expect(gate.inFlight).toBe(1);
    expect(gate.rate(1_000 + STALE_MS)).toBe(0);
  });

  it("a ticket leaves once (in flight never goes negative)", () => {
    const gate = new AdmissionGate();
    gate.leave(12345, 1);
    expect(gate.inFlight).toBe(0);
    const ticket = admit(gate, 1);
    expect(gate.inFlight).toBe(1);
    gate.leave(ticket, 2);
    gate.leave(ticket, 2);
    expect(gate.inFlight).toBe(0);
  });

  it("limits: the defaults, each overridable by a non-negative number, the floor never above the ceiling", () => {
    expect(shedLimits({})).toEqual(SHED_LIMITS);
    expect(shedLimits({ maxInFlight: "1", budgetMs: "50" })).toEqual({ floor: 1, ceiling: 1, budgetMs: 50 });
    expect(shedLimits({ maxInFlight: "-3", budgetMs: "soon" })).toEqual(SHED_LIMITS);
    expect(shedLimits({ maxInFlight: "" })).toEqual(SHED_LIMITS);
  });
});

describe("which requests the gate judges", () => {
  it("every envelope registration (POST), nothing else", () => {
    const pledge = "a".repeat(64);
    for (const path of [
      "/api/delegations",
      "/api/delegations/federation",
      "/api/subdelegations",
      "/api/actions",
      "/api/revocations",
      "/api/pledges",
      "/api/pledge-outcomes",
      "/api/pledge-abandonments",
      `/api/pledges/${pledge}/outcome`,
      `/api/pledges/${pledge}/abandon`,
    ]) {
      expect(isRegistration("POST", path), path).toBe(true);
      expect(isRegistration("GET", path), path).toBe(false);
    }
    for (const path of ["/api/projects", "/api/tokens", "/api/actions/x", "/api/pledges/x", "/api/log/checkpoint"]) {
      expect(isRegistration("POST", path), path).toBe(false);
    }
  });
});

describe("D1's own overload and restart errors", () => {
  it("names each of D1's retryable texts, and nothing else", () => {
    const cases: [string, string | undefined][] = [
      ["D1_ERROR: D1 DB is overloaded. Too many requests queued.", "overloaded"],
      ["D1_ERROR: D1 DB is overloaded. Requests queued for too long.", "overloaded"],
      ["D1_ERROR: Network connection lost.", "restarting"],
      ["D1_ERROR: Internal error in D1 DB storage caused object to be reset.", "restarting"],
      ["D1_ERROR: Internal error while starting up D1 DB storage caused object to be reset.", "restarting"],
      ["D1_ERROR: D1 DB storage operation exceeded timeout which caused object to be reset.", "restarting"],
      ["D1_ERROR: D1 DB reset because its code was updated.", "restarting"],
      ["D1_ERROR: Cannot resolve D1 DB due to transient issue on remote node.", "restarting"],
      ["D1_ERROR: D1 DB's isolate exceeded its memory limit and was reset.", "restarting"],
      ["D1_ERROR: D1 DB exceeded its CPU time limit and was reset.", "restarting"],
      ["D1_ERROR: UNIQUE constraint failed: envelopes.project_id, envelopes.id", undefined],
      ["D1_ERROR: disk I/O error: SQLITE_IOERR", undefined],
      ["D1_TYPE_ERROR: Type 'undefined' not supported for value 'undefined'", undefined],
    ];
    for (const [text, kind] of cases) {
      expect(d1Unavailable(new Error(text)), text).toBe(kind);
      expect(d1Unavailable(text), text).toBe(kind);
    }
  });

  it("answers 503 overloaded with Retry-After by kind", () => {
    const queue = overloadedByD1("overloaded");
    expect(queue).toMatchObject({ reason: "overloaded", status: 503, headers: { "Retry-After": "2" } });
    expect(overloadedByD1("restarting").headers).toEqual({ "Retry-After": "5" });
  });
});
