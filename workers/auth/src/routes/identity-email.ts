// Linking an email to the signed-in account (issue 27): proven by a code mailed to it, asked for and checked by a
// session of that account with a fresh sudo_at at both steps (a recovery sign-in's counts: freshness.ts). Whether the
// address is already some account's is told only after the code proves it: the start answers the same for every
// address. Every address of the account, the new one included, is told of the link.
import { createRoute } from "@hono/zod-openapi";
import { normalizeEmail } from "../../../../shared/auth/email-code";
import { linkIdentity } from "../../../../shared/db/identities";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { sendMail } from "../../../../shared/mail/mailer";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { checkAccountCode, startAccountCode } from "../account-email-codes";
import { CODE_CHECK_ERRORS } from "../email-codes";
import type { AuthEnv } from "../env";
import {
  EmailCodeStartBody,
  EmailCodeVerifyBody,
  EmailIdentityLinkedResult,
  errorResponses,
  json,
  OkResult,
} from "../schemas";
import { identityLinkedMail, linkCodeMail } from "../security-mail";
import { changeBy } from "../session-context";
import { tellAccount } from "../tell-account";

export const identityEmailRoutes = routeGroup<AuthEnv>();

identityEmailRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/identities/email/start",
    summary: "Mail a code to an address to link it to the signed-in account (fresh sudo)",
    description:
      "Needs a sudo proof of the last 10 minutes (`sudo_required` otherwise). Mails a 6-digit code, valid 10 " +
      "minutes, held by this account (one live link code per account; a start for the same address within the " +
      "hour is a resend keeping the wrong tries). Answers the same whoever holds the address. Spends the " +
      "address's and the IP's hourly email-code budget (5 each).",
    middleware: [
      rateLimit({ bucket: "identity-email-start", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { body: jsonRequest(EmailCodeStartBody) },
    responses: {
      200: json(OkResult, "Mailed"),
      ...errorResponses(
        "invalid_body",
        "not_authenticated",
        "sudo_required",
        "rate_limited",
        "mailer_not_configured",
        "mailer_error",
        "cross_site_blocked",
      ),
    },
  }),
  async (c) => {
    const email = normalizeEmail(c.req.valid("json").email);
    const { code } = await startAccountCode(c, { purpose: "link", email, needs: ["link"] });
    await sendMail(c.env, linkCodeMail(email, code));
    return c.json({ ok: true as const }, 200);
  },
);

identityEmailRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/identities/email/verify",
    summary: "Link the address with its code to the signed-in account (fresh sudo)",
    description:
      "Checks the code this account asked for (from any browser of the account's session, no cookie: the " +
      "session is the binding). 5 wrong tries spend it; the address's backstop of email sign-in applies. A right " +
      "code links the address as an email identity, with an `identity.linked` line in the account log; an " +
      "address already on another account is `identity_on_other_account` (merge the two), already here " +
      "`identity_already_linked`.",
    middleware: [
      rateLimit({ bucket: "identity-email-verify", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { body: jsonRequest(EmailCodeVerifyBody) },
    responses: {
      200: json(EmailIdentityLinkedResult, "Linked"),
      ...errorResponses(
        "invalid_body",
        "not_authenticated",
        "sudo_required",
        ...CODE_CHECK_ERRORS,
        "identity_on_other_account",
        "identity_already_linked",
        "rate_limited",
        "cross_site_blocked",
      ),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const email = normalizeEmail(body.email);
    const { session, db, now } = await checkAccountCode(c, {
      purpose: "link",
      email,
      code: body.code,
      needs: ["link"],
    });
    const identity = { kind: "email" as const, value: email };
    await linkIdentity(db, identity, changeBy(session, now));
    await tellAccount(c, session.accountId, (to) => identityLinkedMail(to, identity, now));
    return c.json({ ok: true as const, identity }, 200);
  },
);
