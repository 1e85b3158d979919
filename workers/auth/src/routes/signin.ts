// POST /api/auth/signin: BIP-322 sign-in over an issued challenge; `add` joins the browser's roster.

import { createRoute } from "@hono/zod-openapi";
import { findOrCreateBtcAccount } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { addAsked, completeSignIn } from "../complete-sign-in";
import type { AuthEnv } from "../env";
import { CHALLENGE_ERRORS, CHALLENGE_PURPOSES, provenAddress } from "../proven-address";
import { AccountResult, AddQuery, errorResponses, json, SignInBody } from "../schemas";

/** The purpose a sign-in challenge must carry. */
export const SIGN_IN_PURPOSE = CHALLENGE_PURPOSES.signin;

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
        ...CHALLENGE_ERRORS,
        "cross_site_blocked",
        "roster_full",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const query = c.req.valid("query");
    const add = addAsked(body, query);
    const now = Date.now();
    const address = await provenAddress(c, body, SIGN_IN_PURPOSE, now);
    const db = orm(c.env.DB);
    const account = await findOrCreateBtcAccount(db, address, now);
    return c.json({ ok: true as const, account: await completeSignIn(c, account, add, now, "bip322") }, 200);
  },
);
