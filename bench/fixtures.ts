// Node-side fixtures for the benchmarks, re-exported from the test helpers and the shared libraries (one
// implementation of each wire format): wallets and signed OC Agent envelopes, bip322-js-signed attestations,
// and the webhook event body the registry stores. (The BIP-322 verifier is measured inside workerd.)
export { type AttestationEnvelope, createAttestationEnvelope } from "../shared/attest/envelope";
export { attestationId } from "../shared/attest/id";
export { type SessionSubject, signSessionToken } from "../shared/auth/session-token";
export { sha256Hex } from "../shared/crypto/digest";
export { loadSigningKey } from "../shared/crypto/signing-key";
export { signedAttestations } from "../test/harness/attestations";
export { action, delegation } from "../test/helpers/envelopes";
export { newWallet, type Wallet } from "../test/helpers/wallet";
export { eventPayload } from "../workers/fleet/src/webhooks/event-body";
