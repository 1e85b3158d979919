// The bond decision tree of PLG SPEC §8 (oc-wire-formats §4.7) over an attestation already resolved by the caller
// (OC Attest §1.8 metrics at the evaluation point). No custody, no slashing: a failed bond is a code, not a state.
import type { PledgeCode, PledgeEnvelope } from "./types";

export interface ResolvedBond {
  sats_bonded: number;
  days_unspent: number;
  /** The attestation's address. */
  address: string;
  /** Height the metrics were computed at. */
  valid_at_block?: number;
  /** Height the bonded UTXO was spent at, if it was. */
  spent_at_block?: number;
}

export type BondCode = Extract<
  PledgeCode,
  | "E_BOND_NOT_FOUND"
  | "E_BOND_ADDRESS_MISMATCH"
  | "E_BOND_SPENT"
  | "E_BOND_INSUFFICIENT_SATS"
  | "E_BOND_INSUFFICIENT_DAYS"
>;

export type BondCheck =
  | { ok: true; code: null; sats_bonded: number; days_unspent: number }
  | { ok: false; code: BondCode; detail: string };

export interface BondInput {
  bond: Pick<PledgeEnvelope["bond"], "min_sats" | "min_days">;
  /** The pledge's swearer; the attestation must be theirs. */
  swearer: string;
  /** null when the attestation could not be resolved. */
  attestation: ResolvedBond | null;
  /** Evaluation height (the vectors use resolves_at's block); a spend after it does not count yet. */
  atBlock?: number;
}

/** SPEC §8 order: not found, address, spent, sats, days. */
export function verifyBond({ bond, swearer, attestation, atBlock }: BondInput): BondCheck {
  if (attestation === null) return { ok: false, code: "E_BOND_NOT_FOUND", detail: "bond attestation not found" };
  if (attestation.address !== swearer) {
    return { ok: false, code: "E_BOND_ADDRESS_MISMATCH", detail: "bond attestation is not the swearer's" };
  }
  const spent = attestation.spent_at_block;
  if (spent !== undefined && (atBlock === undefined || spent <= atBlock)) {
    return { ok: false, code: "E_BOND_SPENT", detail: `bonded UTXO spent at block ${spent}` };
  }
  if (attestation.sats_bonded < bond.min_sats) {
    const detail = `${attestation.sats_bonded} sats bonded, ${bond.min_sats} required`;
    return { ok: false, code: "E_BOND_INSUFFICIENT_SATS", detail };
  }
  if (attestation.days_unspent < bond.min_days) {
    const detail = `${attestation.days_unspent} days unspent, ${bond.min_days} required`;
    return { ok: false, code: "E_BOND_INSUFFICIENT_DAYS", detail };
  }
  return { ok: true, code: null, sats_bonded: attestation.sats_bonded, days_unspent: attestation.days_unspent };
}
