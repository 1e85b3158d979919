// POST /api/auth/signin: BIP-322 sign-in over an issued challenge; `add` joins the browser's roster.

import { createRoute } from "@hono/zod-openapi";
import { challengeReason, checkSignedChallenge } from "../../../../shared/auth/challenge";
import { sha256Hex } from "../../../../shared/crypto/digest";
import { findOrCreateBtcAccount } from "../../../../shared/db/accounts";
import { consumeChallenge } from "../../../../shared/db/challenges";
import { orm } from "../../../../shared/db/client";
import { AppError } from "../../../../shared/errors";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { requireAddress, signinNetwork } from "../addresses";
import { completeSignIn } from "../complete-sign-in";
import type { AuthEnv } from "../env";
import { AccountResult, AddQuery, errorResponses, json, SignInBody } from "../schemas";

/** The purpose a sign-in challenge must carry. */
export const SIGN_IN_PURPOSE = "login";

export const signinRoutes = routeGroup<AuthEnv>();

signinRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/signin",
    summary: "Sign in with a BIP-322 signature over an issued challenge",
    description:
      "Get a challenge with GET /api/challenge?addr=…&audience=<this origin>&purpose=login, sign its message, " +
      "and post it here with its nonce. `add=1` (or `add: true`) adds the account to the browser's roster.",
    middleware: [rateLimit({ bucket: "signin", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: {
      query: AddQuery,
      body: jsonRequest(SignInBody),
    },
    responses: {
      200: json(AccountResult, "Signed in; the oc_session cookie is set"),
      ...errorResponses(
        "invalid_body",
        "malformed_json",
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
        "cross_site_blocked",
        "roster_full",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const query = c.req.valid("query");
    const add = body.add === true || query.add === "1" || query.add === "true";
    const now = Date.now();
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
        purpose: SIGN_IN_PURPOSE,
        network,
      },
    });
    if (!checked.ok) throw new AppError(challengeReason(checked.reason));
    const db = orm(c.env.DB);
    // Consumed only after the signature verified, so nobody but the signer can burn a nonce.
    const consumed = await consumeChallenge(db, {
      nonce: checked.challenge.nonce,
      messageHash: await sha256Hex(body.message),
      now,
    });
    if (!consumed) throw new AppError("challenge_unknown", { detail: "not issued here, expired, or already used" });
    const account = await findOrCreateBtcAccount(db, address, now);
    return c.json({ ok: true as const, account: await completeSignIn(c, account, add, now) }, 200);
  },
);
