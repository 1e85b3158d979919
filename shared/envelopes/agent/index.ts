// OC Agent v1 envelopes (oc-wire-formats §3): the public surface of shared/envelopes/agent for the fleet routes.
export {
  type Built,
  buildAction,
  buildDelegation,
  buildFederationDelegation,
  buildFederationRevocation,
  buildRevocation,
  buildSubdelegation,
  type Guardian,
  type RevocationOptions,
  type Sign,
} from "./build";
export {
  type ActionFields,
  AgentCanonicalError,
  canonicalMessage,
  type DelegationFields,
  envelopeId,
  MESSAGE_HEADER,
  type MessageFields,
  type RevocationFields,
  type SubdelegationFields,
} from "./canonical";
export {
  type AgentCheck,
  type AgentFailure,
  FEDERATION_CODE_ALIASES,
  type OcErrorCode,
  UNMAPPED_CODE_REASON,
} from "./codes";
export {
  type ParsedAction,
  type ParsedByKind,
  type ParsedDelegation,
  type ParsedEnvelope,
  type ParsedGrant,
  type ParsedRevocation,
  type ParsedSubdelegation,
  type ParseResult,
  parseAgentEnvelope,
  parseFederationDelegation,
  parseFederationRevocation,
} from "./envelope";
export {
  descriptorId,
  descriptorMessage,
  FEDERATION_HEADER,
  FEDERATION_PREFIX,
  type FederationInfo,
  guardianIdentity,
  isFederationPrincipal,
  parseThreshold,
  type Threshold,
} from "./federation";
export {
  type ActionRecord,
  actionFromFlat,
  type DelegationRecord,
  FLAT_ACTION_FIELDS,
  flatFields,
  type RecordByKind,
  type RevocationRecord,
  type SubdelegationRecord,
} from "./flat";
export {
  cascade,
  checkAction,
  checkDelegationSession,
  checkRevocation,
  checkSubdelegation,
  type GrantStatus,
  MAX_SUBDELEGATION_DEPTH,
  revocationHolders,
} from "./rules";
export {
  canonicalizeScopes,
  canonicalScope,
  parseScope,
  type Scope,
  type ScopeConstraint,
  type ScopeOp,
  type ScopeParse,
} from "./scope";
export { type SignatureCheck, verifyEnvelopeSignatures } from "./signature";
export {
  checkScopeRegistry,
  isGrantedBy,
  isSubScope,
  NUMERIC_SCOPE_KEYS,
  REGISTERED_SCOPES,
  type RegistryMode,
} from "./sub-scope";
export type * from "./types";
export { ENVELOPE_KIND } from "./types";
