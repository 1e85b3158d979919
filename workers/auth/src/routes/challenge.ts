// GET/POST /api/challenge: issue an orangecheck-auth challenge, and verify a signed one (generic: no session,
// no account side effects). Issued nonces are stored and consumed once.

import { createRoute } from "@hono/zod-openapi";
import { buildChallengeMessage, checkSignedChallenge } from "../../../../shared/auth/challenge";
import { randomHex, sha256Hex } from "../../../../shared/crypto/digest";
import { consumeChallenge, storeChallenge } from "../../../../shared/db/challenges";
import { orm } from "../../../../shared/db/client";
import { jsonRequest } from "../../../../shared/http/openapi";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs, SECOND } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { requireAddress, signinNetwork } from "../addresses";
import type { AuthEnv } from "../env";
import {
  ChallengeQuery,
  ChallengeSchema,
  ChallengeVerifyBody,
  ChallengeVerifyResult,
  errorResponses,
  json,
} from "../schemas";

/** Default and bounds of the challenge lifetime, seconds (the SDK default; at most 10 minutes). */
export const CHALLENGE_TTL_SECONDS = 300;

export const challengeRoutes = routeGroup<AuthEnv>();

challengeRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/challenge",
    summary: "Issue an orangecheck-auth challenge to sign",
    middleware: [rateLimit({ bucket: "challenge-get", rule: READ_RULE, failClosed: false })],
    request: { query: ChallengeQuery },
    responses: {
      200: json(ChallengeSchema, "The challenge text, its nonce and expiry"),
      ...errorResponses("invalid_query", "rate_limited"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const address = requireAddress(query.addr, signinNetwork(c.env), "invalid_query");
    const issuedAt = Math.floor(Date.now() / SECOND) * SECOND; // the message carries whole seconds
    const expiresAt = issuedAt + (query.ttl ?? CHALLENGE_TTL_SECONDS) * SECOND;
    const nonce = randomHex(16);
    const message = buildChallengeMessage({
      address,
      nonce,
      issuedAt,
      expiresAt,
      audience: query.audience,
      purpose: query.purpose,
    });
    await storeChallenge(orm(c.env.DB), {
      nonce,
      messageHash: await sha256Hex(message),
      address,
      audience: query.audience ?? null,
      purpose: query.purpose ?? null,
      expiresAt,
      createdAt: issuedAt,
    });
    c.header("Cache-Control", "no-store");
    return c.json({ message, nonce, expiresAt: isoMs(expiresAt) }, 200);
  },
);

challengeRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/challenge",
    summary: "Verify a signed challenge and consume its nonce",
    middleware: [rateLimit({ bucket: "challenge-post", rule: AUTH_RULE, failClosed: true }), jsonBody],
    request: { body: jsonRequest(ChallengeVerifyBody) },
    responses: {
      200: json(ChallengeVerifyResult, "ok true with the signer's address, or ok false with reason invalid_challenge"),
      ...errorResponses("invalid_body", "malformed_json", "unsupported_media_type", "rate_limited"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const now = Date.now();
    const checked = checkSignedChallenge({
      message: body.message,
      signature: body.signature,
      now,
      expected: { nonce: body.expectedNonce, audience: body.expectedAudience, purpose: body.expectedPurpose },
    });
    if (!checked.ok)
      return c.json({ ok: false as const, reason: "invalid_challenge" as const, code: checked.reason }, 200);
    const { challenge } = checked;
    const consumed = await consumeChallenge(orm(c.env.DB), {
      nonce: challenge.nonce,
      expiresAt: challenge.expiresAt,
      messageHash: await sha256Hex(body.message),
      now,
    });
    if (!consumed)
      return c.json({ ok: false as const, reason: "invalid_challenge" as const, code: "nonce_unknown" }, 200);
    return c.json(
      {
        ok: true as const,
        address: challenge.address,
        nonce: challenge.nonce,
        expiresAt: isoMs(challenge.expiresAt),
        ...(challenge.audience !== undefined && { audience: challenge.audience }),
        ...(challenge.purpose !== undefined && { purpose: challenge.purpose }),
      },
      200,
    );
  },
);
