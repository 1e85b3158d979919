// score_v0 (oc-wire-formats §1.10): round(ln(1 + sats) × (1 + days / 30), 2), advisory only.
// The registry says implementers MUST use exactly this formula, so a bond younger than a day scores ln(1 + sats)
// (the Python SDK's answer), not the JS SDK's early 0: docs/decisions.md, "score_v0 of a bond of 0 days".

export const SCORE_ALGORITHM = "v0";

export function scoreV0(sats: number, days: number): number {
  // No chain gives negative or non-numeric metrics; `!(x >= 0)` also catches NaN. The Python SDK raises here.
  if (!(sats >= 0) || !(days >= 0)) return 0;
  // Half-up at the second decimal, as the JS SDK rounds (Python's round() is half-even on the binary value; no
  // ln value lands on an exact tie, so both give the same digits).
  return Math.round(Math.log(1 + sats) * (1 + days / 30) * 100) / 100;
}
