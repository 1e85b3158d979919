// The recovery sign-in (issue 27; docs/decisions.md "Account security"): a person who lost every sign-in identity
// asks for a code at the account's recovery address and signs in with it. Start answers the same for every address
// (its code row, its cookie, its limits; only the mail differs, and it goes out after the answer). The attempt is
// held by the browser that asked, as an email sign-in's is, under the rules of the last way in: 3 starts a day per
// address from one network (so a stranger's starts do not spend the owner's: review 3, item 10), 10 a day per address
// from all together, 5 an hour per IP; every address of the account is told before the session exists. The session
// it makes may link a new way in and nothing else sensitive until it proves more (shared/auth/freshness.ts).
import { createRoute } from "@hono/zod-openapi";
import {
  normalizeEmail,
  RECOVERY_STARTS_PER_ADDRESS_DAY,
  RECOVERY_STARTS_PER_DAY,
  RECOVERY_STARTS_PER_IP_HOUR,
} from "../../../../shared/auth/email-code";
import { accountEvent } from "../../../../shared/db/account-events";
import { orm } from "../../../../shared/db/client";
import { listIdentities } from "../../../../shared/db/identities";
import { accountRecoveredBy } from "../../../../shared/db/recovery-address";
import { AppError } from "../../../../shared/errors";
import { clientIpKey } from "../../../../shared/http/client-ip";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { sendMail } from "../../../../shared/mail/mailer";
import { rateLimit, takeNamed } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { DAY, HOUR } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { addAsked, completeSignIn } from "../complete-sign-in";
import {
  askBrowserCode,
  CODE_CHECK_ERRORS,
  checkBrowserCode,
  clearBrowserCode,
  codeKey,
  mailAfterAnswer,
  requireMailer,
} from "../email-codes";
import type { AuthEnv } from "../env";
import {
  AccountResult,
  AddQuery,
  EmailCodeStartBody,
  errorResponses,
  json,
  OkResult,
  RecoverySignInBody,
} from "../schemas";
import { recoverySignedInMail, recoverySignInCodeMail } from "../security-mail";

export const recoverySignInRoutes = routeGroup<AuthEnv>();
const PER_ASKER = { capacity: RECOVERY_STARTS_PER_DAY, windowMs: DAY };
const PER_ADDRESS = { capacity: RECOVERY_STARTS_PER_ADDRESS_DAY, windowMs: DAY };
const PER_IP = { capacity: RECOVERY_STARTS_PER_IP_HOUR, windowMs: HOUR };

recoverySignInRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/recovery/signin/start",
    summary: "Mail a recovery sign-in code to a recovery address, bound to this browser",
    description:
      "Answers `{ok:true}` for every address, and sets or keeps the `oc_recovery_code` cookie (HttpOnly, " +
      "`Path=/api/auth/recovery/signin`, an hour) as an email sign-in start does; the code (6 digits, 10 minutes) " +
      "is mailed only when the address recovers an account. At most 3 starts a day per address from one network " +
      "(an IPv4 address, an IPv6 /64), 10 a day per address from all together, and 5 an hour per IP.",
    middleware: [
      rateLimit({ bucket: "recovery-signin-start", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { body: jsonRequest(EmailCodeStartBody) },
    responses: {
      200: json(OkResult, "The same answer for every address; may set oc_recovery_code"),
      ...errorResponses("invalid_body", "rate_limited", "mailer_not_configured", "cross_site_blocked"),
    },
  }),
  async (c) => {
    const email = normalizeEmail(c.req.valid("json").email);
    const key = codeKey(c.env);
    requireMailer(c.env);
    // The asker is its network (an IPv4 address, an IPv6 /64), not its cookie: a cookie is the asker's to drop, so a
    // budget bound to it alone would bind nobody. The IP's hourly budget first, the address's backstop last.
    const network = clientIpKey(c.req.raw.headers);
    await takeNamed(c.env.RATE_LIMITER, `recovery-ip|${network}`, PER_IP);
    await takeNamed(c.env.RATE_LIMITER, `recovery-asker|${email}|${network}`, PER_ASKER);
    await takeNamed(c.env.RATE_LIMITER, `recovery-email|${email}`, PER_ADDRESS);
    const now = Date.now();
    const db = orm(c.env.DB);
    const account = await accountRecoveredBy(db, email);
    // A row for an unknown address too (no account; its code never mailed): verify then answers as for any other.
    const code = await askBrowserCode(c, key, { purpose: "recovery", email, accountId: account?.id ?? null }, now);
    if (account) mailAfterAnswer(c, recoverySignInCodeMail(email, code));
    return c.json({ ok: true as const }, 200);
  },
);

recoverySignInRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/recovery/signin/verify",
    summary: "Sign in with a recovery code; `add=1` (or `add: true`) adds the account to the browser's roster",
    description:
      "Checks the code of the attempt named by this browser's `oc_recovery_code` cookie, as email sign-in does " +
      "(5 wrong tries a code, the address's backstop). A right code for an address that still recovers the account " +
      "mails a notice to every email identity of the account and to the recovery address, then signs in: the " +
      "session's `auth_method` is `recovery` and its `sudo_at` now, so a new identity can be linked at once (and " +
      "nothing else that needs sudo until the session proves something more); the account log gets " +
      "`recovery.signed_in`. If the notices cannot be sent, nobody is signed in (`mailer_error`).",
    middleware: [
      rateLimit({ bucket: "recovery-signin-verify", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { query: AddQuery, body: jsonRequest(RecoverySignInBody) },
    responses: {
      200: json(AccountResult, "Signed in; oc_session is set and oc_recovery_code cleared"),
      ...errorResponses(
        "invalid_body",
        ...CODE_CHECK_ERRORS,
        "roster_full",
        "rate_limited",
        "cross_site_blocked",
        "mailer_error",
      ),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const query = c.req.valid("query");
    const email = normalizeEmail(body.email);
    const { accountId, db, now } = await checkBrowserCode(c, { purpose: "recovery", email, code: body.code });
    // The address must still recover the account the code was mailed for (not changed or removed since).
    const account = await accountRecoveredBy(db, email);
    if (!account || account.id !== accountId) throw new AppError("email_code_invalid");
    // The owner's alarm when someone else holds the recovery mailbox: told before the session exists, or no session.
    const linked = (await listIdentities(db, account.id)).filter((i) => i.kind === "email").map((i) => i.value);
    const told = [...new Set([...linked, email])];
    await Promise.all(told.map((to) => sendMail(c.env, recoverySignedInMail(to, email, now))));
    const add = addAsked(body, query);
    const view = await completeSignIn(c, account, add, now, "recovery");
    await accountEvent(db, {
      accountId: account.id,
      eventType: "recovery.signed_in",
      sessionId: null,
      detail: { email, told },
      now,
    });
    clearBrowserCode(c, "recovery");
    return c.json({ ok: true as const, account: view }, 200);
  },
);
