// The verify worker's bindings: what the configuration declares comes from it (bindings.generated.ts, `npm run
// types`: RATE_LIMITER); its optional variables are here.
import type { VerifyGeneratedBindings } from "./bindings.generated";

export interface VerifyBindings extends VerifyGeneratedBindings {
  /** Esplora HTTP API base (default: the public mempool.space API). */
  ESPLORA_URL?: string;
  /** Comma-separated nostr relay URLs (ws:// or wss://) read by check and discover. */
  NOSTR_RELAYS?: string;
  /** Confirmations a UTXO needs before it counts as bonded (default 6). */
  CONFIRMATIONS?: string;
  /** "true" lets testnet/signet attestations verify; otherwise they answer network_testmode. */
  ALLOW_TEST_NETWORKS?: string;
}

export type VerifyEnv = { Bindings: VerifyBindings };
