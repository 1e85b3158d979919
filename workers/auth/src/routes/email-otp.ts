// Email one-time-code sign-in (DECISIONS 10, refined by issue 26): start mails a 6-digit code (same answer whether or
// not the address has an account) and binds it to this browser's attempt (the oc_email_code cookie); verify signs in
// with it, from that browser only. Accounts minted here are held by the service (no key is handed out).
import { createRoute, z } from "@hono/zod-openapi";
import { normalizeEmail } from "../../../../shared/auth/email-code";
import { findOrCreateAccount } from "../../../../shared/db/accounts";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { sendMail } from "../../../../shared/mail/mailer";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { addAsked, completeSignIn } from "../complete-sign-in";
import {
  askBrowserCode,
  CODE_CHECK_ERRORS,
  checkBrowserCode,
  clearBrowserCode,
  codeKey,
  takeHourlyStarts,
} from "../email-codes";
import type { AuthEnv } from "../env";
import { AccountResult, AddQuery, CodeDigits, EmailAddress as Email } from "../schemas";

export const emailOtpRoutes = routeGroup<AuthEnv>();

emailOtpRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/email-otp/start",
    summary: "Email a 6-digit sign-in code (valid 10 minutes), bound to this browser",
    description:
      "Answers `{ok:true}` for every address. The code belongs to this browser's attempt, named by the " +
      "`oc_email_code` cookie (HttpOnly, `Path=/api/auth/email-otp`, an hour): a first start sets it; a start " +
      "from a browser whose attempt for the same address is under an hour old and has tries left is a resend " +
      "(a new code, the attempt's wrong tries kept). At most 5 starts an hour per address and per IP.",
    middleware: [rateLimit({ bucket: "email-otp-start", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: {
      body: jsonRequest(z.strictObject({ email: Email })),
    },
    responses: {
      200: json(z.object({ ok: z.literal(true) }), "Sent (the same answer for every address); may set oc_email_code"),
      ...errorResponses("invalid_body", "rate_limited", "mailer_not_configured", "mailer_error", "cross_site_blocked"),
    },
  }),
  async (c) => {
    const email = normalizeEmail(c.req.valid("json").email);
    const key = codeKey(c.env);
    // At most 5 starts an hour per address and per IP: rotating IPs does not beat the per-address limit.
    await takeHourlyStarts(c, email);
    const now = Date.now();
    // A resend replaces the code but keeps the attempt's wrong tries (better-auth #11162).
    const code = await askBrowserCode(c, key, { purpose: "signin", email, accountId: null }, now);
    await sendMail(c.env, {
      to: email,
      subject: `Your sign-in code: ${code}`,
      text: `Your sign-in code is ${code}. It is valid for 10 minutes. If you did not ask for it, ignore this mail.`,
    });
    return c.json({ ok: true as const }, 200);
  },
);

emailOtpRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/email-otp/verify",
    summary: "Sign in with the emailed code; `add=1` (or `add: true`) adds the account to the browser's roster",
    description:
      "Checks the code of the attempt named by this browser's `oc_email_code` cookie (no cookie, or another " +
      "browser's attempt: `email_code_invalid`). Each try is counted before it is compared: 5 wrong tries spend " +
      "the code (`email_code_locked`; a resend does not restore them, a new code must be asked for). Past 20 " +
      "wrong codes an hour for one address, over every browser, the address is locked until the time the detail " +
      "states (`email_code_locked` with Retry-After). A right code signs in once and clears the cookie.",
    middleware: [rateLimit({ bucket: "email-otp-verify", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: {
      query: AddQuery,
      body: jsonRequest(
        z.strictObject({
          email: Email,
          code: CodeDigits,
          add: z.boolean().optional(),
        }),
      ),
    },
    responses: {
      200: json(AccountResult, "Signed in; the oc_session cookie is set and oc_email_code cleared"),
      ...errorResponses("invalid_body", ...CODE_CHECK_ERRORS, "roster_full", "rate_limited", "cross_site_blocked"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const query = c.req.valid("query");
    const email = normalizeEmail(body.email);
    // Only a `signin` attempt is found, so a link, re-authentication or recovery code never signs in (email-codes.ts).
    const { db, now } = await checkBrowserCode(c, { purpose: "signin", email, code: body.code });
    const account = await findOrCreateAccount(
      db,
      { kind: "email", value: email },
      { displayIdentityKind: "email" },
      now,
    );
    const add = addAsked(body, query);
    const view = await completeSignIn(c, account, add, now, "email");
    clearBrowserCode(c, "signin");
    return c.json({ ok: true as const, account: view }, 200);
  },
);
