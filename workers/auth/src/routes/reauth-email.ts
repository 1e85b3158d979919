// Re-authentication by email code (issue 27): a fresh proof of one of the active account's email identities
// refreshes the session's sudo_at, and the cookie is re-issued with the new claims. An address not linked to the
// account gets a code row like any other but no mail, so its answers are those of a wrong code: the routes never
// tell which addresses the account holds.
import { createRoute } from "@hono/zod-openapi";
import { normalizeEmail } from "../../../../shared/auth/email-code";
import { accountEvent } from "../../../../shared/db/account-events";
import { accountByIdentity } from "../../../../shared/db/accounts";
import type { Db } from "../../../../shared/db/client";
import { reauthenticateSession } from "../../../../shared/db/sessions";
import { AppError } from "../../../../shared/errors";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { checkAccountCode, startAccountCode } from "../account-email-codes";
import { CODE_CHECK_ERRORS, mailAfterAnswer } from "../email-codes";
import type { AuthEnv } from "../env";
import { AccountResult, EmailCodeStartBody, EmailCodeVerifyBody, errorResponses, json, OkResult } from "../schemas";
import { reauthCodeMail } from "../security-mail";
import { setSessionCookie } from "../session-context";

export const reauthEmailRoutes = routeGroup<AuthEnv>();

/** Whether the address is an email identity of the account. */
async function linkedHere(db: Db, accountId: string, email: string): Promise<boolean> {
  return (await accountByIdentity(db, "email", email))?.id === accountId;
}

reauthEmailRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/reauth/email/start",
    summary: "Mail a re-authentication code to one of the active account's email identities",
    description:
      "Answers `{ok:true}` for every address; the code (6 digits, 10 minutes, held by the account) is mailed only " +
      "to an address linked to the active account. Spends the address's and the IP's hourly email-code budget.",
    middleware: [
      rateLimit({ bucket: "reauth-email-start", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { body: jsonRequest(EmailCodeStartBody) },
    responses: {
      200: json(OkResult, "Mailed when the address is linked here (the same answer otherwise)"),
      ...errorResponses(
        "invalid_body",
        "not_authenticated",
        "rate_limited",
        "mailer_not_configured",
        "cross_site_blocked",
      ),
    },
  }),
  async (c) => {
    const email = normalizeEmail(c.req.valid("json").email);
    const start = { purpose: "reauth", email, needs: [], mailedAfterAnswer: true } as const;
    const { code, session, db } = await startAccountCode(c, start);
    if (await linkedHere(db, session.accountId, email)) mailAfterAnswer(c, reauthCodeMail(email, code));
    return c.json({ ok: true as const }, 200);
  },
);

reauthEmailRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/reauth/email/verify",
    summary: "Refresh the active session's sudo_at with the emailed code; the cookie is re-issued",
    description:
      "Checks the code the active account asked for (5 wrong tries; the address's backstop applies). A right code " +
      "for an address linked to the account sets the session's `sudo_at` (and `auth_method` email) to now, " +
      "re-issues `oc_session` with the new claims and logs `reauthenticated`. Any other address fails as a wrong " +
      "code does (`email_code_invalid`).",
    middleware: [
      rateLimit({ bucket: "reauth-email-verify", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { body: jsonRequest(EmailCodeVerifyBody) },
    responses: {
      200: json(AccountResult, "Re-authenticated; the oc_session cookie is re-issued"),
      ...errorResponses(
        "invalid_body",
        "not_authenticated",
        ...CODE_CHECK_ERRORS,
        "rate_limited",
        "cross_site_blocked",
      ),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const email = normalizeEmail(body.email);
    const { session, db, now } = await checkAccountCode(c, { purpose: "reauth", email, code: body.code, needs: [] });
    const accountId = session.accountId;
    // Unlinked since the start (or never linked, and the code guessed): no proof of this account.
    if (!(await linkedHere(db, accountId, email))) throw new AppError("email_code_invalid");
    const issued = await reauthenticateSession(db, session, { method: "email", stepUp: false, now });
    const account = await db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, accountId) });
    if (!issued || !account) throw new AppError("not_authenticated");
    await accountEvent(db, {
      accountId,
      eventType: "reauthenticated",
      sessionId: session.id,
      detail: { method: "email", email },
      now,
    });
    return c.json({ ok: true as const, account: await setSessionCookie(c, account, issued, now) }, 200);
  },
);
