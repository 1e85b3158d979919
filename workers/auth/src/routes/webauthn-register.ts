// Registering a hardware key (a security key or a passkey) on the active account (issue 27): options bound to this
// session row, then the browser's answer, verified by @simplewebauthn/server. While the account has a key, both steps
// need a fresh step-up with one of its keys (review 3, item 5: an identity proof alone must not add a key that would
// then revoke the owner's); the first key needs a fresh sudo_at (add-rule.ts). Every address of the account is told.
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import { staleProof } from "../../../../shared/auth/freshness";
import { addRefusal } from "../../../../shared/auth/webauthn/add-rule";
import { registrationOptions, verifyRegistration } from "../../../../shared/auth/webauthn/ceremony";
import { defaultKeyName } from "../../../../shared/auth/webauthn/config";
import { accountView } from "../../../../shared/db/accounts";
import { type Db, orm } from "../../../../shared/db/client";
import { accountKeys, addKey, storedKey } from "../../../../shared/db/webauthn";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { staleRefusal } from "../fresh-session";
import { keyAddedMail } from "../security-mail";
import { changeBy, requireSession } from "../session-context";
import { tellAccount } from "../tell-account";
import { answerOptions, keyView, refusal, rpOf, takeChallenge, userLabel } from "../webauthn-edge";
import { CreationOptionsResult, KeyResult, RegisterBody } from "../webauthn-schemas";

export const webauthnRegisterRoutes = routeGroup<AuthEnv>();

/** The session, once its proofs allow adding a key to its account as the account is now; and the account's keys. */
async function mayAdd(c: Context<AuthEnv>, db: Db, now: number) {
  const { session } = await requireSession(c, now);
  const keys = await accountKeys(db, session.accountId);
  const stale = addRefusal(session, keys.length, now);
  if (stale) throw staleRefusal(stale, session);
  return { session, keys };
}

const RULE =
  "While the account has a key, needs a step-up with one of its keys within 10 minutes (403 step_up_required: " +
  "POST /api/auth/webauthn/stepup/options, then /stepup, then retry); the account's first key needs a fresh " +
  "sudo_at that is not a recovery sign-in's (403 sudo_required).";

webauthnRegisterRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/webauthn/register/options",
    summary: "Options to register a security key or passkey on the active account (a step-up, or sudo for the first)",
    description:
      `${RULE} Pass \`options\` to @simplewebauthn/browser's startRegistration({optionsJSON}) (or decode it for ` +
      "navigator.credentials.create) and post the answer to /api/auth/webauthn/register within 5 minutes, from " +
      "this session. The account's keys are excluded, a discoverable credential is preferred (a passkey), and user " +
      "verification is as the host is configured (WEBAUTHN_USER_VERIFICATION: preferred or required).",
    middleware: [rateLimit({ bucket: "webauthn-register-options", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    responses: {
      200: json(CreationOptionsResult, "Options holding a single-use challenge bound to this session"),
      ...errorResponses("not_authenticated", "sudo_required", "step_up_required", "cross_site_blocked", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const db = orm(c.env.DB);
    const { session, keys } = await mayAdd(c, db, now);
    const account = await db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, session.accountId) });
    if (!account) throw new AppError("not_authenticated");
    const options = await registrationOptions(rpOf(c), {
      accountId: account.id,
      userName: userLabel(await accountView(db, account)),
      exclude: keys.map(storedKey),
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
      `\`response\` is startRegistration's result; \`name\` (optional) labels the key. ${RULE} The challenge is ` +
      "used once, whatever the outcome. Stored: the credential id, its public key, counter, transports and whether " +
      "it is a synced passkey; the account log gets a `hardware_key.registered` line, and every address of the " +
      "account (its email identities and recovery address) is mailed a notice.",
    middleware: [rateLimit({ bucket: "webauthn-register", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { body: jsonRequest(RegisterBody) },
    responses: {
      201: json(KeyResult, "Registered"),
      ...errorResponses(
        "invalid_body",
        "not_authenticated",
        "sudo_required",
        "step_up_required",
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
    const db = orm(c.env.DB);
    const { session } = await mayAdd(c, db, now);
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
    // Proven by sudo alone: stored only while the account still has no key (a first key registered meanwhile wins).
    const onlyFirst = staleProof(session, ["step_up"], now) !== undefined;
    const row = await addKey(db, verdict.key, name, changeBy(session, now), onlyFirst);
    await tellAccount(c, session.accountId, (to) => keyAddedMail(to, row.name, now));
    return c.json({ ok: true as const, key: keyView(row) }, 201);
  },
);
