// The freshness gate (issue 27): "did this session prove its identity (sudo_at) or a hardware key (step_up_at)
// recently enough?", decided from the local session check alone. The core is framework-agnostic,
// `(request) => decision`; the middlewares are separate entry points (./hono, ./node) so a Node site does not load Hono.
export {
  decideFresh,
  type FreshDecision,
  type FreshFailure,
  type FreshPolicy,
  type FreshRefusalBody,
  freshPolicy,
  refusal,
} from "./decision";
export {
  DEFAULT_STEP_UP_MAX_AGE,
  type FreshGate,
  type FreshGateOptions,
  type FreshSessionSource,
  type RequestLike,
  requireFresh,
  requireStepUp,
  type StepUpGateOptions,
} from "./gate";
