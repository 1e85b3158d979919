// POST /api/auth/switch: make another account of this browser's roster the active one, without re-authenticating.

import { createRoute } from "@hono/zod-openapi";
import { accountByDid } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { reissueSession, rosterMembers } from "../../../../shared/db/sessions";
import { AppError } from "../../../../shared/errors";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { AccountResult, errorResponses, json, SwitchBody } from "../schemas";
import { requireSession, setSessionCookie } from "../session-context";

export const switchRoutes = routeGroup<AuthEnv>();

switchRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/switch",
    summary: "Switch the active account to another account of the roster",
    middleware: [rateLimit({ bucket: "switch", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { body: jsonRequest(SwitchBody) },
    responses: {
      200: json(AccountResult, "Switched; the oc_session cookie now carries the target account"),
      ...errorResponses(
        "invalid_body",
        "not_authenticated",
        "not_in_roster",
        "unknown_did_oc",
        "no_roster",
        "already_active",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const { did_oc } = c.req.valid("json");
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const db = orm(c.env.DB);
    const target = await accountByDid(db, did_oc);
    if (!target) throw new AppError("unknown_did_oc");
    if (session.rosterId === null) throw new AppError("no_roster", { detail: "sign in again to use several accounts" });
    if (target.id === session.accountId) throw new AppError("already_active");
    const member = (await rosterMembers(db, session.rosterId, now)).find((m) => m.account.id === target.id);
    if (!member) throw new AppError("not_in_roster");
    const issued = await reissueSession(db, member.session, now);
    if (!issued) throw new AppError("not_in_roster");
    const account = await setSessionCookie(c, target, issued, now);
    return c.json({ ok: true as const, account }, 200);
  },
);
