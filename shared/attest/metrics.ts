// Bond and age of an attested address (oc-wire-formats §1.8, §1.9) from its Esplora UTXO list: confirmation
// depth, the greedy oldest-first selection for a `bond:` and days unspent. Pure: tip height and `now` come in.
import { DAY, SECOND } from "../time";

/** One entry of Esplora's `GET /address/:addr/utxo`. */
export interface EsploraUtxo {
  txid: string;
  vout: number;
  value: number;
  status: { confirmed: boolean; block_height?: number; block_time?: number };
}

/** ATT SECURITY §3: six confirmations is the family default (DECISIONS 19). */
export const DEFAULT_CONFIRMATIONS = 6;

export type BondCode = "bond_confirmed" | "bond_zero" | "bond_insufficient";

export interface BondMetrics {
  code: BondCode;
  /** Unconfirmed or too shallow UTXOs exist while nothing counts yet: the caller adds bond_pending. */
  pending: boolean;
  sats_bonded: number;
  days_unspent: number;
  /** Sum of the UTXOs deep enough to count. */
  confirmed_balance: number;
}

export interface BondMetricsInput {
  utxos: readonly EsploraUtxo[];
  tipHeight: number;
  confirmations?: number;
  /** The message's `bond:` in sats; ignored unless a positive integer. */
  bond?: bigint | number;
  now: number;
}

type Counted = EsploraUtxo & { status: { block_height: number } };

function positiveBond(bond: bigint | number | undefined): bigint | undefined {
  if (typeof bond === "bigint") return bond > 0n ? bond : undefined;
  return typeof bond === "number" && Number.isSafeInteger(bond) && bond > 0 ? BigInt(bond) : undefined;
}

function oldestFirst(a: Counted, b: Counted): number {
  if (a.status.block_height !== b.status.block_height) return a.status.block_height - b.status.block_height;
  if (a.txid !== b.txid) return a.txid < b.txid ? -1 : 1;
  return a.vout - b.vout;
}

export function bondMetrics(input: BondMetricsInput): BondMetrics {
  const { utxos, tipHeight, now } = input;
  const depth = input.confirmations ?? DEFAULT_CONFIRMATIONS;
  // A malformed value would only ever be undercounted, never trusted.
  const usable = utxos.filter((u) => Number.isSafeInteger(u.value) && u.value >= 0);
  const counted = usable.filter(
    (u): u is Counted =>
      u.status.confirmed === true &&
      typeof u.status.block_height === "number" &&
      tipHeight - u.status.block_height + 1 >= depth,
  );
  const balance = counted.reduce((sum, u) => sum + BigInt(u.value), 0n);
  const confirmed_balance = Number(balance);
  const pending = balance === 0n && usable.length > counted.length;
  // A confirmed UTXO without a block time is treated as confirmed now: it can only make the bond younger.
  const blockTime = (u: Counted) => u.status.block_time ?? now / SECOND;
  const daysSince = (firstSeen: number) => Math.max(0, Math.floor((now - firstSeen * SECOND) / DAY));
  const none = { pending, sats_bonded: 0, days_unspent: 0, confirmed_balance };

  const bond = positiveBond(input.bond);
  if (bond !== undefined) {
    if (balance < bond) return { code: "bond_insufficient", ...none };
    let sum = 0n;
    let youngest = Number.NEGATIVE_INFINITY;
    for (const utxo of [...counted].sort(oldestFirst)) {
      sum += BigInt(utxo.value);
      youngest = Math.max(youngest, blockTime(utxo));
      if (sum >= bond) break;
    }
    return {
      code: "bond_confirmed",
      pending,
      sats_bonded: Number(bond),
      days_unspent: daysSince(youngest),
      confirmed_balance,
    };
  }
  if (balance === 0n) return { code: "bond_zero", ...none };
  const oldest = counted.reduce((min, u) => Math.min(min, blockTime(u)), Number.POSITIVE_INFINITY);
  return {
    code: "bond_confirmed",
    pending,
    sats_bonded: confirmed_balance,
    days_unspent: daysSince(oldest),
    confirmed_balance,
  };
}
