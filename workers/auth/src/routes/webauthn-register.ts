// Registering a hardware key (a security key or a passkey) on the active account (issue 27): options bound to this
// session row, then the browser's answer, verified by @simplewebauthn/server. Both need a fresh sudo_at: a stolen
// cookie alone cannot add a key that would then outlive every other proof.
import { createRoute } from "@hono/zod-openapi";
import { registrationOptions, verifyRegistration } from "../../../../shared/auth/webauthn/ceremony";
import { defaultKeyName } from "../../../../shared/auth/webauthn/config";
import { accountView } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { accountKeys, addKey, storedKey } from "../../../../shared/db/webauthn";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { requireFreshSession } from "../fresh-session";
import { changeBy } from "../session-context";
import { answerOptions, keyView, refusal, rpOf, takeChallenge, userLabel } from "../webauthn-edge";
import { CreationOptionsResult, KeyResult, RegisterBody } from "../webauthn-schemas";

export const webauthnRegisterRoutes = routeGroup<AuthEnv>();

webauthnRegisterRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/webauthn/register/options",
    summary: "Options to register a security key or passkey on the active account (needs a fresh sudo_at)",
    description:
      "Pass `options` to @simplewebauthn/browser's startRegistration({optionsJSON}) (or decode it for " +
      "navigator.credentials.create) and post the answer to /api/auth/webauthn/register within 5 minutes, from " +
      "this session. The account's keys are excluded, a discoverable credential is preferred (a passkey), and user " +
      "verification is as the host is configured (WEBAUTHN_USER_VERIFICATION: preferred or required).",
    middleware: [rateLimit({ bucket: "webauthn-register-options", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    responses: {
      200: json(CreationOptionsResult, "Options holding a single-use challenge bound to this session"),
      ...errorResponses("not_authenticated", "sudo_required", "cross_site_blocked", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireFreshSession(c, now, ["sudo"]);
    const db = orm(c.env.DB);
    const account = await db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, session.accountId) });
    if (!account) throw new AppError("not_authenticated");
    const options = await registrationOptions(rpOf(c), {
      accountId: account.id,
      userName: userLabel(await accountView(db, account)),
      exclude: (await accountKeys(db, account.id)).map(storedKey),
    });
    return answerOptions(c, options, { purpose: "register", accountId: account.id, sessionId: session.id, now });
  },
);

webauthnRegisterRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/webauthn/register",
    summary: "Register the browser's answer to the registration options as a key of the active account",
    description:
      "`response` is startRegistration's result; `name` (optional) labels the key. Needs a fresh sudo_at. The " +
      "challenge is used once, whatever the outcome. Stored: the credential id, its public key, counter, transports " +
      "and whether it is a synced passkey; the account log gets a `hardware_key.registered` line.",
    middleware: [rateLimit({ bucket: "webauthn-register", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { body: jsonRequest(RegisterBody) },
    responses: {
      201: json(KeyResult, "Registered"),
      ...errorResponses(
        "invalid_body",
        "not_authenticated",
        "sudo_required",
        "webauthn_challenge_invalid",
        "webauthn_response_invalid",
        "webauthn_already_registered",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const now = Date.now();
    const { session } = await requireFreshSession(c, now, ["sudo"]);
    const db = orm(c.env.DB);
    const challenge = await takeChallenge(db, body.response.response.clientDataJSON, {
      purpose: "register",
      sessionId: session.id,
      now,
    });
    const verdict = await verifyRegistration(rpOf(c), { answer: body.response, challenge });
    if (!verdict.ok) throw refusal(verdict.failure);
    const name =
      body.name ??
      defaultKeyName({ deviceType: verdict.key.deviceType, attachment: body.response.authenticatorAttachment });
    const row = await addKey(db, verdict.key, name, changeBy(session, now));
    return c.json({ ok: true as const, key: keyView(row) }, 201);
  },
);
