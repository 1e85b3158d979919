// Plans and what they cost (service-spec Billing, rule 12): community is free, pro is bought by card (a monthly
// subscription) or over lightning (a 30-day period per invoice, in sats), enterprise is never self-serve. Pure.
import { DAY } from "../time";

export const TIERS = ["community", "pro", "enterprise"] as const;
export type Tier = (typeof TIERS)[number];

/** What a checkout may ask for; enterprise is refused with 409 tier_not_self_serve. */
export const CHECKOUT_TIERS = ["pro", "enterprise"] as const;
export type CheckoutTier = (typeof CHECKOUT_TIERS)[number];

/** One lightning payment buys this long; a card subscription's period comes from the processor. */
export const LIGHTNING_PERIOD_MS = 30 * DAY;

export interface Prices {
  /** Pro by card, per month, in US cents. */
  proUsdCents: number;
  /** Pro over lightning, per 30 days, in sats. */
  proSats: number;
}

export const DEFAULT_PRICES: Prices = { proUsdCents: 2_900, proSats: 50_000 };

/** Prices with the operator's overrides (`BILLING_PRO_USD_CENTS`, `BILLING_PRO_SATS`); bad values keep the default. */
export function pricesFrom(env: { BILLING_PRO_USD_CENTS?: string; BILLING_PRO_SATS?: string }): Prices {
  const positive = (text: string | undefined, fallback: number) => {
    const value = Number(text);
    return text !== undefined && Number.isSafeInteger(value) && value > 0 ? value : fallback;
  };
  return {
    proUsdCents: positive(env.BILLING_PRO_USD_CENTS, DEFAULT_PRICES.proUsdCents),
    proSats: positive(env.BILLING_PRO_SATS, DEFAULT_PRICES.proSats),
  };
}

export interface PlanState {
  plan: string;
  periodEnd: number | null;
  autoRenew: boolean;
}

export interface PlanView {
  plan: Tier;
  /** When a renewing (card) plan next renews. */
  renews_at: number | null;
  /** When a plan that does not renew ends. */
  expires_at: number | null;
}

/** The plan in force at `now`: a non-renewing plan past its period has lapsed to community. */
export function planInForce(state: PlanState | undefined, now: number): PlanView {
  const plan = (TIERS as readonly string[]).includes(state?.plan ?? "") ? (state?.plan as Tier) : "community";
  if (!state || plan === "community") return { plan: "community", renews_at: null, expires_at: null };
  const { periodEnd, autoRenew } = state;
  if (!autoRenew && periodEnd !== null && periodEnd <= now)
    return { plan: "community", renews_at: null, expires_at: null };
  return { plan, renews_at: autoRenew ? periodEnd : null, expires_at: autoRenew ? null : periodEnd };
}
