// Hardware-key assertions (issue 27). A passkey sign-in: anonymous options with no allowCredentials (the browser
// offers its discoverable credentials, in the autofill where it can), and the credential names its account; it sets
// sudo_at, and step_up_at only when the key verified its user (UV: PIN, biometrics; review 3, item 6). A step-up:
// options naming the active account's keys, bound to this session row, asking for UV; an assertion by one of them
// with UV refreshes both proofs and re-issues the cookie, one without is refused. The counter only moves forward.
import { createRoute } from "@hono/zod-openapi";
import { assertionOptions, verifyAssertion } from "../../../../shared/auth/webauthn/ceremony";
import { orm } from "../../../../shared/db/client";
import { reauthenticateSession } from "../../../../shared/db/sessions";
import { accountKeys, keyById, recordAssertion, storedKey } from "../../../../shared/db/webauthn";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { addAsked, completeSignIn } from "../complete-sign-in";
import type { AuthEnv } from "../env";
import { AccountResult, AddQuery } from "../schemas";
import { requireSession, setSessionCookie } from "../session-context";
import { answerOptions, refusal, rpOf, takeChallenge } from "../webauthn-edge";
import { RequestOptionsResult, SignInBody, StepUpBody, StepUpResult } from "../webauthn-schemas";

export const webauthnAssertRoutes = routeGroup<AuthEnv>();

const limited = (bucket: string) => rateLimit({ bucket, rule: AUTH_RULE, failClosed: true });
const ASSERTION_ERRORS = [
  "invalid_body",
  "webauthn_challenge_invalid",
  "webauthn_credential_unknown",
  "webauthn_response_invalid",
  "webauthn_counter_regressed",
  "cross_site_blocked",
  "rate_limited",
] as const;
const UNKNOWN_KEY = "that credential is not registered here";
const RACED = "another assertion with this counter was accepted first";

webauthnAssertRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/webauthn/signin/options",
    summary: "Options to sign in with a passkey (discoverable: the browser offers the passkeys it holds for this host)",
    description:
      "Anonymous. Pass `options` to startAuthentication({optionsJSON}) (useBrowserAutofill for the passkey " +
      "autofill) and post the answer to /api/auth/webauthn/signin within 5 minutes.",
    middleware: [limited("webauthn-signin-options"), sameOrigin()],
    responses: {
      200: json(RequestOptionsResult, "Options holding a single-use challenge"),
      ...errorResponses("cross_site_blocked", "rate_limited"),
    },
  }),
  async (c) => {
    const options = await assertionOptions(rpOf(c), undefined);
    return answerOptions(c, options, { purpose: "signin", accountId: null, sessionId: null, now: Date.now() });
  },
);

webauthnAssertRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/webauthn/signin",
    summary: "Sign in with a passkey; `add=1` (or `add: true`) adds the account to the browser's roster",
    description:
      "The credential names its account. The session gets sudo_at, and step_up_at too when the authenticator " +
      "verified its user (the UV flag: a passkey is then also a step-up). The challenge is used once, whatever " +
      "the outcome.",
    middleware: [limited("webauthn-signin"), sameOrigin(), jsonBody],
    request: { query: AddQuery, body: jsonRequest(SignInBody) },
    responses: {
      200: json(AccountResult, "Signed in; the oc_session cookie is set"),
      ...errorResponses(...ASSERTION_ERRORS, "roster_full"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const query = c.req.valid("query");
    const now = Date.now();
    const db = orm(c.env.DB);
    const { response } = body;
    const challenge = await takeChallenge(db, response.response.clientDataJSON, {
      purpose: "signin",
      sessionId: null,
      now,
    });
    const row = await keyById(db, response.id);
    if (!row) throw new AppError("webauthn_credential_unknown", { detail: UNKNOWN_KEY });
    const verdict = await verifyAssertion(rpOf(c), { answer: response, challenge, key: storedKey(row) });
    if (!verdict.ok) throw refusal(verdict.failure);
    if (!(await recordAssertion(db, { id: row.id, counter: verdict.counter, now })))
      throw new AppError("webauthn_counter_regressed", { detail: RACED });
    const account = await db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, row.accountId) });
    if (!account) throw new AppError("webauthn_credential_unknown", { detail: UNKNOWN_KEY });
    const add = addAsked(body, query);
    return c.json(
      { ok: true as const, account: await completeSignIn(c, account, add, now, "passkey", verdict.userVerified) },
      200,
    );
  },
);

webauthnAssertRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/webauthn/stepup/options",
    summary: "Options to confirm it is you with one of the active account's keys (a step-up)",
    description:
      "The options name the active account's keys, ask for user verification (PIN, biometrics) and are bound to " +
      "this session row; post the answer to /api/auth/webauthn/stepup within 5 minutes. An account without keys " +
      "is 404 not_found.",
    middleware: [limited("webauthn-stepup-options"), sameOrigin()],
    responses: {
      200: json(RequestOptionsResult, "Options holding a single-use challenge bound to this session"),
      ...errorResponses("not_authenticated", "not_found", "cross_site_blocked", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const db = orm(c.env.DB);
    const keys = (await accountKeys(db, session.accountId)).map(storedKey);
    if (keys.length === 0) throw new AppError("not_found", { detail: "the active account has no security key" });
    const options = await assertionOptions(rpOf(c), keys);
    return answerOptions(c, options, { purpose: "stepup", accountId: session.accountId, sessionId: session.id, now });
  },
);

webauthnAssertRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/webauthn/stepup",
    summary: "Confirm it is you with one of the active account's keys: refreshes step_up_at and sudo_at",
    description:
      "An assertion by a key of another account (or none) is webauthn_credential_unknown; one without the UV flag " +
      "(the key did not verify its user) is webauthn_response_invalid, whatever WEBAUTHN_USER_VERIFICATION says. " +
      "On success the session " +
      "row's proofs are refreshed, the cookie is re-issued with the new step_up_at, and the account log gets a " +
      "`reauthenticated` line (method passkey).",
    middleware: [limited("webauthn-stepup"), sameOrigin(), jsonBody],
    request: { body: jsonRequest(StepUpBody) },
    responses: {
      200: json(StepUpResult, "Stepped up; the oc_session cookie carries the new step_up_at"),
      ...errorResponses(...ASSERTION_ERRORS, "not_authenticated"),
    },
  }),
  async (c) => {
    const { response } = c.req.valid("json");
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const db = orm(c.env.DB);
    const challenge = await takeChallenge(db, response.response.clientDataJSON, {
      purpose: "stepup",
      sessionId: session.id,
      now,
    });
    const row = await keyById(db, response.id);
    if (row?.accountId !== session.accountId)
      throw new AppError("webauthn_credential_unknown", { detail: "that key is not one of the active account's" });
    const key = storedKey(row);
    const verdict = await verifyAssertion(rpOf(c), { answer: response, challenge, key, requireUserVerification: true });
    if (!verdict.ok) throw refusal(verdict.failure);
    // The log line lands with the counter update (one batch); the row's proofs are refreshed only if it did.
    const line = {
      accountId: session.accountId,
      eventType: "reauthenticated" as const,
      sessionId: session.id,
      detail: { method: "passkey", credential_id: row.id },
      now,
    };
    if (!(await recordAssertion(db, { id: row.id, counter: verdict.counter, now }, line)))
      throw new AppError("webauthn_counter_regressed", { detail: RACED });
    const issued = await reauthenticateSession(db, session, { method: "passkey", stepUp: true, now });
    const account = await db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, session.accountId) });
    if (!issued || !account) throw new AppError("not_authenticated");
    const view = await setSessionCookie(c, account, issued, now);
    return c.json({ ok: true as const, account: view, step_up_at: isoMs(now) }, 200);
  },
);
