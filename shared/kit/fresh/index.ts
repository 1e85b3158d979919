// The freshness gates (issue 27): "did this session prove its identity (sudo_at, requireFresh) or a hardware key
// (step_up_at, requireStepUp) within maxAge seconds?", decided from the local session check alone. The core is
// framework-agnostic, `(request) => decision`; the middlewares are separate entry points (./hono, ./node) so a Node
// site does not load Hono.
export {
  decideFresh,
  type FreshDecision,
  type FreshFailure,
  type FreshPolicy,
  freshMaxAge,
  refusal,
} from "./decision";
export {
  DEFAULT_MAX_AGE,
  type FreshGate,
  type FreshGateOptions,
  type RequestLike,
  requireFresh,
  requireStepUp,
} from "./gate";
