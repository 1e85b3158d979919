// The active account's recovery address (issue 27): read it; set or change it with a code mailed to the new address;
// remove it. Changing or removing it needs a fresh sudo_at (at both steps of a change) that is not a recovery
// sign-in's (review 3: a recovery proves only the mailbox it would replace), and every address of the account and the
// address it replaced are told by mail, after the change (a notice that failed is logged: the change stands). Whether
// the address already recovers another account is told only after its code proves it, so nobody learns it of an
// address not theirs.
import { createRoute } from "@hono/zod-openapi";
import { normalizeEmail } from "../../../../shared/auth/email-code";
import { orm } from "../../../../shared/db/client";
import { recoveryAddressOf, removeRecoveryAddress, setRecoveryAddress } from "../../../../shared/db/recovery-address";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { sendMail } from "../../../../shared/mail/mailer";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { checkAccountCode, startAccountCode } from "../account-email-codes";
import { CODE_CHECK_ERRORS, mailAfterAnswer } from "../email-codes";
import type { AuthEnv } from "../env";
import { requireFreshSession } from "../fresh-session";
import { EmailCodeStartBody, EmailCodeVerifyBody, errorResponses, json, OkResult, RecoveryResult } from "../schemas";
import {
  recoveryRemovedMail,
  recoveryRemovedNoticeMail,
  recoveryReplacedMail,
  recoverySetCodeMail,
  recoverySetMail,
} from "../security-mail";
import { changeBy, requireSession } from "../session-context";
import { tellAccount } from "../tell-account";

export const recoveryRoutes = routeGroup<AuthEnv>();

const CHANGE_ERRORS = ["not_authenticated", "sudo_required", "rate_limited", "cross_site_blocked"] as const;

recoveryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/recovery",
    summary: "The active account's recovery address, if it has one",
    middleware: [rateLimit({ bucket: "recovery-read", rule: READ_RULE, failClosed: false })],
    responses: {
      200: json(RecoveryResult, "The address and when it was proven; none when the account has no recovery address"),
      ...errorResponses("not_authenticated", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const recovery = await recoveryAddressOf(orm(c.env.DB), session.accountId);
    c.header("Cache-Control", "no-store, private");
    const view = recovery ? { email: recovery.email, set_at: isoMs(recovery.setAt) } : null;
    return c.json({ ok: true as const, recovery: view }, 200);
  },
);

recoveryRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/recovery/start",
    summary: "Mail a code to the address to become the recovery address (fresh sudo)",
    description:
      "Needs a sudo proof of the last 10 minutes, not a recovery sign-in's. Mails a 6-digit code (10 minutes) held by this account to the " +
      "new address; the same answer whoever the address recovers. Spends the address's and the IP's hourly " +
      "email-code budget.",
    middleware: [
      rateLimit({ bucket: "recovery-set-start", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { body: jsonRequest(EmailCodeStartBody) },
    responses: {
      200: json(OkResult, "Mailed to the new address"),
      ...errorResponses("invalid_body", "mailer_not_configured", "mailer_error", ...CHANGE_ERRORS),
    },
  }),
  async (c) => {
    const email = normalizeEmail(c.req.valid("json").email);
    const { code } = await startAccountCode(c, { purpose: "recovery_set", email, needs: ["sudo"] });
    await sendMail(c.env, recoverySetCodeMail(email, code));
    return c.json({ ok: true as const }, 200);
  },
);

recoveryRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/recovery/verify",
    summary: "Make the proven address the recovery address (fresh sudo); the replaced one is told",
    description:
      "Needs a sudo proof of the last 10 minutes, not a recovery sign-in's. Checks the code this account asked " +
      "for (5 wrong tries; the address's backstop applies), then sets the address (`recovery.set` in the account " +
      "log). An address that already recovers another account is `recovery_address_taken`. The address it " +
      "replaced, if any, and every address of the account (its email identities, the new recovery address) are " +
      "mailed.",
    middleware: [
      rateLimit({ bucket: "recovery-set-verify", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { body: jsonRequest(EmailCodeVerifyBody) },
    responses: {
      200: json(RecoveryResult, "Set"),
      ...errorResponses("invalid_body", ...CODE_CHECK_ERRORS, "recovery_address_taken", ...CHANGE_ERRORS),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const email = normalizeEmail(body.email);
    const check = { purpose: "recovery_set", email, code: body.code, needs: ["sudo"] } as const;
    const { session, db, now } = await checkAccountCode(c, check);
    const { previous } = await setRecoveryAddress(db, email, changeBy(session, now));
    if (previous !== null && previous !== email) mailAfterAnswer(c, recoveryReplacedMail(previous, now));
    await tellAccount(c, session.accountId, (to) => recoverySetMail(to, email, now), [previous ?? ""]);
    return c.json({ ok: true as const, recovery: { email, set_at: isoMs(now) } }, 200);
  },
);

recoveryRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/auth/recovery",
    summary: "Remove the recovery address (fresh sudo); it is told",
    description:
      "Needs a sudo proof of the last 10 minutes, not a recovery sign-in's. Logs `recovery.removed` and mails the " +
      "removed address and every email identity of the account.",
    middleware: [rateLimit({ bucket: "recovery-remove", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    responses: {
      200: json(OkResult, "Removed"),
      ...errorResponses("recovery_not_set", ...CHANGE_ERRORS),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireFreshSession(c, now, ["sudo"]);
    const { previous } = await removeRecoveryAddress(orm(c.env.DB), changeBy(session, now));
    mailAfterAnswer(c, recoveryRemovedMail(previous, now));
    await tellAccount(c, session.accountId, (to) => recoveryRemovedNoticeMail(to, previous, now));
    return c.json({ ok: true as const }, 200);
  },
);
