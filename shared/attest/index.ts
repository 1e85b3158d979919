// OC Attest v1 (oc-wire-formats §1): the public surface of shared/attest, for routes and adapters.
export { AttestBuildError, type AttestBuildErrorCode } from "./build-error";
export {
  ATTEST_ACK,
  ATTEST_HEADER,
  ATTEST_PURPOSE,
  type AttestationInput,
  buildAttestationMessage,
  type ExtensionValue,
  parseUtcTimestamp,
} from "./canonical";
export {
  type AttestationEnvelope,
  type AttestScheme,
  type CreateEnvelopeInput,
  checkEnvelopeConsistency,
  createAttestationEnvelope,
  type EnvelopeCheck,
  type EnvelopeContent,
  type EnvelopeFailure,
  isEnvelopeContent,
} from "./envelope";
export { ATTESTATION_ID, attestationId } from "./id";
export { formatIdentities, type Identity, nostrPubkeyHex, parseIdentities, sameIdentity } from "./identities";
export { type BondCode, type BondMetrics, bondMetrics, DEFAULT_CONFIRMATIONS, type EsploraUtxo } from "./metrics";
export {
  ATTESTATION_EVENT_KIND,
  ATTESTATION_TOPIC,
  type NostrEvent,
  type NostrEventFailure,
  type NostrEventParse,
  parseNostrAttestationEvent,
} from "./nostr-event";
export {
  type AttestNetwork,
  type ParseAttestationResult,
  type ParsedAttestation,
  parseAttestationMessage,
} from "./parse";
export { SCORE_ALGORITHM, scoreV0 } from "./score";
export {
  type AttestCode,
  applyThresholds,
  detectScheme,
  finishVerification,
  type PreVerifyInput,
  type PreVerifyResult,
  preVerifyAttestation,
  type VerificationMetrics,
  type VerificationResult,
} from "./verify";
