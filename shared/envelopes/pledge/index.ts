// OC Pledge v1 (oc-wire-formats §4): the public surface of shared/envelopes/pledge, for the fleet routes and
// the reconciler. Parse → verifyPledgeSignature → rules (checkOutcome / checkAbandonment) → store flatFields.
export { createAbandonmentEnvelope, parseAbandonmentEnvelope } from "./abandonment";
export { type BondCheck, type BondCode, type BondInput, type ResolvedBond, verifyBond } from "./bond";
export {
  ABANDONMENT_DOMAIN,
  abandonmentMessage,
  DETERMINISTIC,
  type MessageResult,
  messageId,
  OUTCOME_DOMAIN,
  outcomeMessage,
  PLEDGE_DOMAIN,
  pledgeMessage,
  REMEDIATION,
} from "./canonical";
export { checkPledgeDelegation, type DelegationCheck, type DelegationRecord, scopeGrantsPledge } from "./delegation";
export { createPledgeEnvelope, type PledgeSigner, parsePledgeEnvelope } from "./envelope";
export { type AbandonmentFields, flatFields, type OutcomeFields, type PledgeFields } from "./flat";
export { createOutcomeEnvelope, expiredUnresolvedOutcome, parseOutcomeEnvelope } from "./outcome";
export { isMechanism, namedOracle } from "./resolution";
export { checkAbandonment, checkOutcome, isExpiryDue, isResolverAuthorized, type RuleCheck } from "./rules";
export { expectedSigner, isDeterministicOutcomeAllowed, type SignatureCheck, verifyPledgeSignature } from "./signature";
export {
  nextPledgeStatus,
  PLEDGE_STATUSES,
  type PledgeEvent,
  type PledgeStatus,
  type ProtocolState,
  pledgeState,
  type StateInput,
  type StatusTransition,
} from "./state";
export * from "./types";
