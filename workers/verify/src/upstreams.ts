// The verify worker's upstreams and policy knobs, read from its bindings.
import { type Chain, DEFAULT_ESPLORA_URL, esploraChain } from "../../../shared/chain/esplora";
import { AppError } from "../../../shared/errors";
import { parseRelayList } from "../../../shared/nostr/relay-pool";
import type { VerifyBindings } from "./env";

/** Confirmations a UTXO needs to count as bonded when CONFIRMATIONS is unset (the family default). */
export const DEFAULT_CONFIRMATIONS = 6;

export function chainFor(env: VerifyBindings): Chain {
  return esploraChain(env.ESPLORA_URL || DEFAULT_ESPLORA_URL);
}

export function relaysFor(env: VerifyBindings): string[] {
  const relays = parseRelayList(env.NOSTR_RELAYS);
  if (relays.length === 0) throw new AppError("relays_not_configured", { detail: "set NOSTR_RELAYS" });
  return relays;
}

export function confirmationsFor(env: VerifyBindings): number {
  const n = Number(env.CONFIRMATIONS);
  return Number.isInteger(n) && n >= 1 ? n : DEFAULT_CONFIRMATIONS;
}

export function allowTestNetworks(env: VerifyBindings): boolean {
  return env.ALLOW_TEST_NETWORKS === "true";
}
