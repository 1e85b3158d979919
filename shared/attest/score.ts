// score_v0 (oc-wire-formats §1.10): round(ln(1 + sats) × (1 + days / 30), 2), advisory only.
// As the reference SDK computes it: 0 unless both sats and days are positive, rounding half up.

export const SCORE_ALGORITHM = "v0";

export function scoreV0(sats: number, days: number): number {
  // `!(x > 0)` also catches NaN.
  if (!(sats > 0) || !(days > 0)) return 0;
  return Math.round(Math.log(1 + sats) * (1 + days / 30) * 100) / 100;
}
