// The verify worker's bindings.
import type { RateLimiter } from "../../../shared/rate-limit/rate-limiter";

export interface VerifyBindings {
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
}

export type VerifyEnv = { Bindings: VerifyBindings };
