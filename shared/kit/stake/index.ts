// The stake gate (issue 16): "does this session's Bitcoin address hold min_sats bonded for min_days?", decided from
// the local session check and the verification API. The core is framework-agnostic, `(request) => decision`; the
// middlewares are separate entry points (./hono, ./node) so a Node site does not load Hono.
export {
  type CheckAnswer,
  checkPath,
  decide,
  readCheckAnswer,
  refusal,
  type StakeDecision,
  type StakeFacts,
  type StakeFailure,
  type StakePolicy,
} from "./decision";
export {
  DEFAULT_STAKE_CACHE_TTL_MS,
  type RequestLike,
  requireStake,
  type StakeCheckOptions,
  type StakeGate,
  type StakeGateOptions,
} from "./gate";
