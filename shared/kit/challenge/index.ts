// The signed-challenge flow (orangecheck-auth) for sites that prove address control themselves: a client that
// reads both forms of `expiresAt` (ISO 8601 here, unix ms on the OrangeCheck host), and the readers it uses.
export {
  type ChallengeCallFailure,
  type ChallengeClientOptions,
  type ChallengeFailure,
  type ChallengeRequest,
  type ChallengeSubmission,
  requestChallenge,
  submitChallenge,
} from "./client";
export {
  expiryMs,
  type IssuedChallenge,
  type ReadFailure,
  readChallenge,
  readVerifiedChallenge,
  type VerifiedChallenge,
} from "./read";
