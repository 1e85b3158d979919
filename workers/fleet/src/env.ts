// The fleet worker's bindings.
import type { RateLimiter } from "../../../shared/rate-limit/rate-limiter";

export interface FleetBindings {
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
}

export type FleetEnv = { Bindings: FleetBindings };
