// Pure billing rules: which plan is in force, price overrides, and Stripe's nested form encoding.
import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES, planInForce, pricesFrom } from "../../shared/billing/plans";
import { formEncode } from "../../shared/billing/stripe";

describe("planInForce", () => {
  const now = Date.UTC(2026, 10, 23);
  it("is community without a row, or for an unknown plan name", () => {
    expect(planInForce(undefined, now)).toEqual({ plan: "community", renews_at: null, expires_at: null });
    expect(planInForce({ plan: "gold", periodEnd: now + 1, autoRenew: false }, now).plan).toBe("community");
  });
  it("shows a renewing plan's renewal and a non-renewing plan's expiry", () => {
    expect(planInForce({ plan: "pro", periodEnd: now + 10, autoRenew: true }, now)).toEqual({
      plan: "pro",
      renews_at: now + 10,
      expires_at: null,
    });
    expect(planInForce({ plan: "pro", periodEnd: now + 10, autoRenew: false }, now)).toEqual({
      plan: "pro",
      renews_at: null,
      expires_at: now + 10,
    });
  });
  it("lapses a non-renewing plan at its end; a renewing one waits for the processor", () => {
    expect(planInForce({ plan: "pro", periodEnd: now, autoRenew: false }, now).plan).toBe("community");
    expect(planInForce({ plan: "pro", periodEnd: now - 1, autoRenew: true }, now).plan).toBe("pro");
  });
  it("keeps enterprise without an end", () => {
    expect(planInForce({ plan: "enterprise", periodEnd: null, autoRenew: false }, now)).toEqual({
      plan: "enterprise",
      renews_at: null,
      expires_at: null,
    });
  });
});

describe("pricesFrom", () => {
  it("takes positive integer overrides and ignores anything else", () => {
    expect(pricesFrom({})).toEqual(DEFAULT_PRICES);
    expect(pricesFrom({ BILLING_PRO_USD_CENTS: "4900", BILLING_PRO_SATS: "21000" })).toEqual({
      proUsdCents: 4900,
      proSats: 21000,
    });
    for (const bad of ["0", "-1", "1.5", "abc", ""]) {
      expect(pricesFrom({ BILLING_PRO_USD_CENTS: bad, BILLING_PRO_SATS: bad })).toEqual(DEFAULT_PRICES);
    }
  });
});

describe("formEncode", () => {
  it("encodes nested objects and arrays with brackets, leaving out undefined and null", () => {
    expect(
      formEncode({
        mode: "subscription",
        customer: undefined,
        metadata: { project_id: "proj_1", note: null },
        line_items: [{ quantity: 1, price_data: { recurring: { interval: "month" } } }],
        url: "http://x/?a=b&c",
      }),
    ).toBe(
      [
        "mode=subscription",
        "metadata%5Bproject_id%5D=proj_1",
        "line_items%5B0%5D%5Bquantity%5D=1",
        "line_items%5B0%5D%5Bprice_data%5D%5Brecurring%5D%5Binterval%5D=month",
        "url=http%3A%2F%2Fx%2F%3Fa%3Db%26c",
      ].join("&"),
    );
  });
});
