// Bond metrics from Esplora UTXO lists (confirmation depth, greedy oldest-first bond age, day boundaries)
// and score_v0 against the vectors and the documented examples.
import { describe, expect, it } from "vitest";
import { bondMetrics, type EsploraUtxo } from "../../shared/attest/metrics";
import { scoreV0 } from "../../shared/attest/score";

const TIP = 1000;
const NOW = Date.parse("2026-05-01T00:00:00Z");
const NOW_S = NOW / 1000;
const DAY_S = 86400;

/** A UTXO confirmed at `height`, `daysAgo` days before NOW (or unconfirmed when height is undefined). */
function utxo(txid: string, value: number, height?: number, daysAgo = 0, vout = 0): EsploraUtxo {
  if (height === undefined) return { txid, vout, value, status: { confirmed: false } };
  return { txid, vout, value, status: { confirmed: true, block_height: height, block_time: NOW_S - daysAgo * DAY_S } };
}

const metrics = (utxos: EsploraUtxo[], extra: { bond?: bigint | number; confirmations?: number; now?: number } = {}) =>
  bondMetrics({ utxos, tipHeight: TIP, now: NOW, ...extra });

describe("bondMetrics: what counts as confirmed", () => {
  it("gives bond_zero for an address with no UTXOs", () => {
    expect(metrics([])).toEqual({
      code: "bond_zero",
      pending: false,
      sats_bonded: 0,
      days_unspent: 0,
      confirmed_balance: 0,
    });
  });

  it("gives bond_zero and pending when only unconfirmed UTXOs exist", () => {
    expect(metrics([utxo("aa", 50000)])).toMatchObject({ code: "bond_zero", pending: true, sats_bonded: 0 });
  });

  it("counts a UTXO from six confirmations (tip − height + 1 ≥ 6), not five", () => {
    expect(metrics([utxo("aa", 50000, TIP - 4, 1)])).toMatchObject({ code: "bond_zero", pending: true });
    expect(metrics([utxo("aa", 50000, TIP - 5, 1)])).toMatchObject({
      code: "bond_confirmed",
      pending: false,
      sats_bonded: 50000,
      days_unspent: 1,
    });
    expect(metrics([utxo("aa", 50000, TIP, 0)], { confirmations: 1 })).toMatchObject({ code: "bond_confirmed" });
  });

  it("does not count a block above the known tip or a confirmed UTXO without a height", () => {
    const noHeight: EsploraUtxo = { txid: "bb", vout: 0, value: 1, status: { confirmed: true } };
    expect(metrics([utxo("aa", 50000, TIP + 1)], { confirmations: 1 })).toMatchObject({
      code: "bond_zero",
      pending: true,
    });
    expect(metrics([noHeight])).toMatchObject({ code: "bond_zero", pending: true });
  });

  it("sums only deep UTXOs and is not pending once something counts", () => {
    const utxos = [utxo("aa", 70000, 100, 40), utxo("bb", 30000, 200, 20), utxo("cc", 99999), utxo("dd", 5, TIP)];
    expect(metrics(utxos)).toEqual({
      code: "bond_confirmed",
      pending: false,
      sats_bonded: 100000,
      days_unspent: 40,
      confirmed_balance: 100000,
    });
  });
});

describe("bondMetrics: the bond extension", () => {
  // Oldest first: A (height 100, 400 days), B (200, 100 days), C (300, 10 days).
  const A = utxo("aa", 60000, 100, 400);
  const B = utxo("bb", 50000, 200, 100);
  const C = utxo("cc", 1000000, 300, 10);

  it("selects oldest first until the bond is covered and dates it by the youngest selected", () => {
    expect(metrics([C, A, B], { bond: 100000n })).toEqual({
      code: "bond_confirmed",
      pending: false,
      sats_bonded: 100000,
      days_unspent: 100,
      confirmed_balance: 1110000,
    });
    expect(metrics([C, B, A], { bond: 60000 })).toMatchObject({ sats_bonded: 60000, days_unspent: 400 });
    expect(metrics([C, B, A])).toMatchObject({ sats_bonded: 1110000, days_unspent: 400 });
  });

  it("reports exactly the bond and ignores the surplus", () => {
    expect(metrics([C], { bond: 1 })).toMatchObject({ code: "bond_confirmed", sats_bonded: 1, days_unspent: 10 });
    expect(metrics([A, B, C], { bond: 1110000 })).toMatchObject({ sats_bonded: 1110000, days_unspent: 10 });
  });

  it("gives a younger age after churn (old coin spent, the same amount refilled)", () => {
    const before = [utxo("aa", 100000, 100, 400)];
    const after = [utxo("ee", 100000, 900, 5)];
    expect(metrics(before, { bond: 100000 }).days_unspent).toBe(400);
    expect(metrics(after, { bond: 100000 }).days_unspent).toBe(5);
  });

  it("breaks height ties by txid, then vout", () => {
    const byTxid = [utxo("bb", 100000, 100, 10), utxo("aa", 100000, 100, 300)];
    expect(metrics(byTxid, { bond: 100000 }).days_unspent).toBe(300);
    const byVout = [utxo("aa", 100000, 100, 10, 1), utxo("aa", 100000, 100, 300, 0)];
    expect(metrics(byVout, { bond: 100000 }).days_unspent).toBe(300);
  });

  it("gives bond_insufficient when the confirmed balance is below the bond", () => {
    const utxos = [A, B, utxo("ff", 10000000)];
    expect(metrics(utxos, { bond: 110001 })).toEqual({
      code: "bond_insufficient",
      pending: false,
      sats_bonded: 0,
      days_unspent: 0,
      confirmed_balance: 110000,
    });
    expect(metrics(utxos, { bond: 110000 })).toMatchObject({ code: "bond_confirmed", sats_bonded: 110000 });
    expect(metrics([], { bond: 10n ** 30n })).toMatchObject({ code: "bond_insufficient" });
  });

  it("ignores a bond that is not a positive integer", () => {
    for (const bond of [0, -5, 1.5, 0n, -1n]) {
      expect(metrics([A, B], { bond })).toMatchObject({ code: "bond_confirmed", sats_bonded: 110000 });
    }
  });
});

describe("bondMetrics: days unspent", () => {
  const at = (secondsAgo: number, now = NOW) => {
    const one: EsploraUtxo = {
      txid: "aa",
      vout: 0,
      value: 1000,
      status: { confirmed: true, block_height: 1, block_time: NOW_S - secondsAgo },
    };
    return metrics([one], { now }).days_unspent;
  };

  it("floors whole periods of 86400 seconds", () => {
    expect(at(DAY_S - 1)).toBe(0);
    expect(at(DAY_S)).toBe(1);
    expect(at(DAY_S + 1)).toBe(1);
    expect(at(2 * DAY_S - 1)).toBe(1);
    expect(at(2 * DAY_S)).toBe(2);
    expect(at(DAY_S, NOW - 1)).toBe(0);
  });

  it("clamps a block time in the future to 0 and treats a missing block time as now", () => {
    expect(at(-3 * DAY_S)).toBe(0);
    const noTime: EsploraUtxo = { txid: "aa", vout: 0, value: 1, status: { confirmed: true, block_height: 1 } };
    expect(metrics([noTime, utxo("bb", 1, 2, 50)])).toMatchObject({ sats_bonded: 2, days_unspent: 50 });
    expect(metrics([utxo("bb", 1, 1, 50), noTime], { bond: 2 })).toMatchObject({ days_unspent: 0 });
  });
});

describe("scoreV0", () => {
  it.each([
    [0, 0, 0],
    [100000, 30, 23.03],
    [1000000, 365, 181.9],
    [100000000, 90, 73.68],
    [125000, 47, 30.12],
    [50000, 12, 15.15],
    [100000, 90, 46.05],
    [1000000, 90, 55.26],
  ])("score_v0(%i sats, %i days) = %d", (sats, days, score) => {
    expect(scoreV0(sats, days)).toBe(score);
  });

  // docs/decisions.md "score_v0 of a bond younger than a day": the registered formula, as the Python SDK computes
  // it, not the JS SDK's early return of 0 for days = 0.
  it("follows the formula for a bond of 0 days: ln(1 + sats) × 1", () => {
    expect(scoreV0(100000, 0)).toBe(11.51);
    expect(scoreV0(1, 0)).toBe(0.69);
    expect(scoreV0(100000000, 0)).toBe(18.42);
  });

  it("is 0 without sats, and for inputs no chain can give (negative, not a number)", () => {
    expect(scoreV0(0, 365)).toBe(0);
    expect(scoreV0(-1, 10)).toBe(0);
    expect(scoreV0(10, -1)).toBe(0);
    expect(scoreV0(Number.NaN, 10)).toBe(0);
  });
});
