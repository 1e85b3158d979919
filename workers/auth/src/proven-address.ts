// A Bitcoin address proved by a BIP-322 signature over a challenge this host issued for `purpose`: the sign-in
// (`login`), linking an address to the signed-in account (`link`) and re-authenticating with one (`reauth`) share
// these checks, and a challenge issued for one purpose never serves another (the purpose is in the signed text).
import type { Context } from "hono";
import { challengeReason, checkSignedChallenge } from "../../../shared/auth/challenge";
import { sha256Hex } from "../../../shared/crypto/digest";
import { consumeChallenge } from "../../../shared/db/challenges";
import { orm } from "../../../shared/db/client";
import { AppError } from "../../../shared/errors";
import { requireAddress, signinNetwork } from "./addresses";
import type { AuthEnv } from "./env";

export const CHALLENGE_PURPOSES = { signin: "login", link: "link", reauth: "reauth" } as const;
export type ChallengePurpose = (typeof CHALLENGE_PURPOSES)[keyof typeof CHALLENGE_PURPOSES];

/** The reasons provenAddress refuses a proof with (challengeReason's, and a nonce not issued here), for the routes. */
export const CHALLENGE_ERRORS = [
  "challenge_malformed",
  "challenge_expired",
  "challenge_not_yet_valid",
  "challenge_address_mismatch",
  "challenge_nonce_mismatch",
  "challenge_audience_mismatch",
  "challenge_purpose_mismatch",
  "challenge_network_mismatch",
  "challenge_sig_invalid",
  "challenge_unknown",
] as const;

export interface SignedChallenge {
  address: string;
  message: string;
  signature: string;
  nonce?: string | undefined;
  expectedNonce?: string | undefined;
}

/** The address in canonical form, once its signature over an unused challenge of `purpose` verified. */
export async function provenAddress(
  c: Context<AuthEnv>,
  body: SignedChallenge,
  purpose: ChallengePurpose,
  now: number,
): Promise<string> {
  const network = signinNetwork(c.env);
  const address = requireAddress(body.address, network, "invalid_body", "challenge_network_mismatch");
  const checked = checkSignedChallenge({
    message: body.message,
    signature: body.signature,
    now,
    expected: {
      address: body.address,
      nonce: body.nonce ?? body.expectedNonce,
      audience: c.env.AUTH_ORIGIN,
      purpose,
      network,
    },
  });
  if (!checked.ok) throw new AppError(challengeReason(checked.reason));
  // Consumed only after the signature verified, so nobody but the signer can burn a nonce.
  const consumed = await consumeChallenge(orm(c.env.DB), {
    nonce: checked.challenge.nonce,
    expiresAt: checked.challenge.expiresAt,
    messageHash: await sha256Hex(body.message),
    now,
  });
  if (!consumed) throw new AppError("challenge_unknown", { detail: "not issued here, expired, or already used" });
  return address;
}
