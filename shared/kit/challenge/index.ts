// The signed-challenge flow (orangecheck-auth) for sites that prove address control themselves: a client that
// reads both forms of `expiresAt` (ISO 8601 here, unix ms on the OrangeCheck host), and the readers it uses.
export {
  type ChallengeCall,
  type ChallengeCallFailure,
  type ChallengeClientOptions,
  type ChallengeVerdict,
  requestChallenge,
  submitChallenge,
} from "./client";
export {
  expiryMs,
  type IssuedChallenge,
  type ReadResult,
  readChallenge,
  readVerifiedChallenge,
  type VerifiedChallenge,
} from "./read";
