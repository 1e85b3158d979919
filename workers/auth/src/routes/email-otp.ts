// Email one-time-code sign-in (DECISIONS 10): start mails a 6-digit code (same answer whether or not the address
// has an account), verify signs in with it. Accounts minted here are held by the service (no key is handed out).
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import {
  CODE_TTL_MS,
  codeMac,
  codeMatches,
  FAILURE_WINDOW_MS,
  MAX_FAILURES,
  newCode,
  normalizeEmail,
  STARTS_PER_HOUR,
} from "../../../../shared/auth/email-code";
import { findOrCreateAccount } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { emailCodes } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { clientIpKey } from "../../../../shared/http/client-ip";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { sendMail } from "../../../../shared/mail/mailer";
import { rateLimit, takeNamed } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { completeSignIn } from "../complete-sign-in";
import type { AuthEnv } from "../env";
import { AccountResult, AddQuery } from "../schemas";

export const emailOtpRoutes = routeGroup<AuthEnv>();
const HOURLY = { capacity: STARTS_PER_HOUR, windowMs: 60 * 60 * 1000 };
const Email = z.string().trim().max(254).email();

function codeKey(env: AuthEnv["Bindings"]): string {
  if (!env.EMAIL_CODE_KEY || env.EMAIL_CODE_KEY.length < 16)
    throw new AppError("mailer_not_configured", { detail: "EMAIL_CODE_KEY is not set" });
  return env.EMAIL_CODE_KEY;
}

emailOtpRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/email-otp/start",
    summary: "Email a 6-digit sign-in code (valid 10 minutes)",
    middleware: [rateLimit({ bucket: "email-otp-start", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: {
      body: jsonRequest(z.strictObject({ email: Email })),
    },
    responses: {
      200: json(z.object({ ok: z.literal(true) }), "Sent (the same answer for every address)"),
      ...errorResponses("invalid_body", "rate_limited", "mailer_not_configured", "mailer_error", "cross_site_blocked"),
    },
  }),
  async (c) => {
    const email = normalizeEmail(c.req.valid("json").email);
    const key = codeKey(c.env);
    // At most 5 starts an hour per address and per IP: rotating IPs does not beat the per-address limit.
    await takeNamed(c.env.RATE_LIMITER, `otp-email|${email}`, HOURLY);
    await takeNamed(c.env.RATE_LIMITER, `otp-ip|${clientIpKey(c.req.raw.headers)}`, HOURLY);
    const code = newCode();
    const now = Date.now();
    const fresh = { codeMac: await codeMac(key, email, code), expiresAt: now + CODE_TTL_MS, createdAt: now };
    // A resend replaces the code but keeps the failure count (better-auth #11162).
    await orm(c.env.DB)
      .insert(emailCodes)
      .values({ email, ...fresh, failures: 0, failuresSince: null })
      .onConflictDoUpdate({ target: emailCodes.email, set: fresh });
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
    middleware: [rateLimit({ bucket: "email-otp-verify", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: {
      query: AddQuery,
      body: jsonRequest(
        z.strictObject({
          email: Email,
          code: z.string().regex(/^\d{6}$/, "six digits"),
          add: z.boolean().optional(),
        }),
      ),
    },
    responses: {
      200: json(AccountResult, "Signed in; the oc_session cookie is set"),
      ...errorResponses(
        "invalid_body",
        "email_code_invalid",
        "email_code_expired",
        "email_code_locked",
        "rate_limited",
        "cross_site_blocked",
      ),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const query = c.req.valid("query");
    const email = normalizeEmail(body.email);
    const key = codeKey(c.env);
    const now = Date.now();
    const db = orm(c.env.DB);
    // The attempt is counted before the code is compared, in one conditional write: of any number of concurrent
    // guesses, only those that got a row back (at most MAX_FAILURES in a window) are ever compared.
    const inWindow = sql`${emailCodes.failuresSince} is not null and ${now} - ${emailCodes.failuresSince} < ${FAILURE_WINDOW_MS}`;
    const [row] = await db
      .update(emailCodes)
      .set({
        failures: sql`case when ${inWindow} then ${emailCodes.failures} + 1 else 1 end`,
        failuresSince: sql`case when ${inWindow} then ${emailCodes.failuresSince} else ${now} end`,
      })
      .where(and(eq(emailCodes.email, email), sql`(not (${inWindow}) or ${emailCodes.failures} < ${MAX_FAILURES})`))
      .returning({ codeMac: emailCodes.codeMac, expiresAt: emailCodes.expiresAt });
    if (!row) {
      const held = await db
        .select({ email: emailCodes.email })
        .from(emailCodes)
        .where(eq(emailCodes.email, email))
        .get();
      throw new AppError(held ? "email_code_locked" : "email_code_invalid");
    }
    if (now >= row.expiresAt) throw new AppError("email_code_expired");
    // A wrong guess has already been counted, against the address, never by code value.
    if (!(await codeMatches(key, email, body.code, row.codeMac))) throw new AppError("email_code_invalid");
    // Single use: only one concurrent verify can delete the row.
    const consumed = await db
      .delete(emailCodes)
      .where(and(eq(emailCodes.email, email), eq(emailCodes.codeMac, row.codeMac)))
      .returning();
    if (consumed.length === 0) throw new AppError("email_code_invalid");
    const account = await findOrCreateAccount(
      db,
      { kind: "email", value: email },
      { displayIdentityKind: "email" },
      now,
    );
    const add = body.add === true || query.add === "1" || query.add === "true";
    return c.json({ ok: true as const, account: await completeSignIn(c, account, add, now) }, 200);
  },
);
