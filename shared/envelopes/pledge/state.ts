// Pledge states, twice: the fleet's stored status (service-spec "States and transitions → Pledge", DECISIONS 17)
// and the protocol's classification from the evidence (PLG SPEC §4.4–4.5), which the state vectors pin.
import { parseIsoSeconds } from "./grammar";
import { OUTCOMES, type OutcomeValue, type PledgeEnvelope, type PledgeRefusal } from "./types";

/** The fleet record's statuses: `abandoned` is its own state there (the public ledger counts it as broken). */
export const PLEDGE_STATUSES = ["pending", ...OUTCOMES, "abandoned"] as const;
export type PledgeStatus = (typeof PLEDGE_STATUSES)[number];

export type PledgeEvent =
  | { type: "outcome"; outcome: OutcomeValue }
  /** The reconciler found the pledge past expires_at with no resolution (it registers the v16-style outcome). */
  | { type: "expiry" }
  | { type: "abandonment" };

export type StatusTransition = { ok: true; status: PledgeStatus } | PledgeRefusal<"pledge_not_pending">;

/** Every move starts from pending; the other five states are final (moves out of disputed: not shown). */
export function nextPledgeStatus(current: PledgeStatus, event: PledgeEvent): StatusTransition {
  if (current !== "pending") {
    return { ok: false, reason: "pledge_not_pending", code: null, detail: `the pledge is already ${current}` };
  }
  switch (event.type) {
    case "outcome":
      return { ok: true, status: event.outcome };
    case "expiry":
      return { ok: true, status: "expired_unresolved" };
    case "abandonment":
      return { ok: true, status: "abandoned" };
  }
}

export type ProtocolState = "pending" | "resolvable" | "kept" | "broken" | "disputed" | "expired_unresolved";

export interface StateInput {
  /** Absent when only outcomes are known (v21, v22). */
  pledge?: Pick<PledgeEnvelope, "resolves_at" | "expires_at">;
  /** Outcomes whose signatures (where required) the caller has verified; `author` is resolved_by. */
  outcomes: readonly { author: string; outcome: OutcomeValue }[];
  /** A verified abandonment of this pledge is present. */
  abandoned: boolean;
  /** Chain context for a block-typed resolves_at; without it such a pledge cannot become resolvable. */
  chain?: { height: number; tipTime?: number; blockTimes?: Readonly<Record<number, number>> };
  now: number;
}

/** Wall-clock time of resolves_at: the time, or block N's time (tip time if mined, +∞ if not). */
function resolvesAtMs(pledge: NonNullable<StateInput["pledge"]>, chain: StateInput["chain"], now: number): number {
  const at = pledge.resolves_at;
  if ("time" in at) return parseIsoSeconds(at.time) ?? Number.POSITIVE_INFINITY;
  const known = chain?.blockTimes?.[at.block];
  if (known !== undefined) return known;
  if (chain !== undefined && chain.height >= at.block) return chain.tipTime ?? now;
  return Number.POSITIVE_INFINITY;
}

/**
 * PLG SPEC §4.4 `state()`: abandonment → broken; outcomes → their common value, or disputed when they
 * disagree (pledge-core's reading: any disagreement, no window check); past expires_at → expired_unresolved;
 * past resolves_at → resolvable; else pending.
 */
export function pledgeState(input: StateInput): ProtocolState {
  if (input.abandoned) return "broken";
  const [first, ...others] = input.outcomes;
  if (first !== undefined) {
    return others.some((other) => other.outcome !== first.outcome) ? "disputed" : first.outcome;
  }
  if (input.pledge === undefined) return "pending";
  const expires = parseIsoSeconds(input.pledge.expires_at) ?? Number.POSITIVE_INFINITY;
  if (input.now >= expires) return "expired_unresolved";
  if (input.now >= resolvesAtMs(input.pledge, input.chain, input.now)) return "resolvable";
  return "pending";
}
