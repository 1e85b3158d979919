// Consumer-site session verification (issue 8, part 1): the verifier and freshness helpers. The middlewares are
// separate entry points (./hono, ./node) so a Node site does not load Hono and a Worker does not load the other.

export { KIT_USER_AGENT, KIT_VERSION } from "../version";
export type { Refusal } from "./gate";
export {
  type AuthOriginOptions,
  authEndpoints,
  createSessionVerifier,
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_COOLDOWN_MS,
  type DisplayIdentity,
  type DisplayIdentityKind,
  type HeaderSource,
  isFresh,
  isSteppedUp,
  isSudo,
  SESSION_FAILURES,
  type SessionClaims,
  type SessionFailure,
  type SessionVerifier,
  type SessionVerifierOptions,
  sessionTokens,
  type VerifiedSession,
} from "./session-verifier";
export type { SessionSource, SessionSourceOptions } from "./source";
export type { OcState, OcVariables } from "./state";
