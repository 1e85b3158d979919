// The envelope kit (issue 8, part 2): keys, building and signing every OC Agent / OC Pledge envelope, registering
// them with a fleet, and verifying an audit bundle offline. The `oc` CLI (scripts/oc.mjs) is built on this.
export {
  type BitcoinKey,
  KEY_TYPES,
  type KeyNetwork,
  type KeyType,
  keyFromWif,
  newKey,
} from "../../bitcoin/signer";
export {
  type Cosignature,
  checkCosignatures,
  cosignerVerifierKey,
  parseCosignerKey,
  readWitnessPolicy,
  type WitnessCheck,
  type WitnessFailure,
  type WitnessPolicy,
} from "../../tlog/cosignature";
export {
  type AbandonmentBuildInput,
  type ActionInput,
  abandonment,
  action,
  type BuildOptions,
  type BuiltEnvelope,
  type DelegationInput,
  delegation,
  type EnvelopeSigner,
  type OutcomeBuildInput,
  outcome,
  type PledgeBuildInput,
  pledge,
  type RevocationInput,
  revocation,
  type SubdelegationInput,
  subdelegation,
} from "./build";
export {
  type BundleFailure,
  type BundleVerification,
  detectFormat,
  verifyBundle,
} from "./bundle";
export { checkBundleLog, type LogCheck, type LogCheckFailure } from "./bundle-log";
export {
  ENVELOPE_ROUTES,
  type EnvelopeKindLabel,
  type RegisterOptions,
  type Registration,
  registerEnvelope,
  registrationPath,
} from "./register";
