// POST /api/auth/roster/signout {did_oc}: sign one account of this browser's roster out, leaving the active one
// (issue 27: the account security page lists the roster's sessions). Signing out takes power away, so it needs no
// fresh proof; the active account itself signs out with POST /api/auth/logout?scope=current.
import { createRoute, z } from "@hono/zod-openapi";
import { accountEvent } from "../../../../shared/db/account-events";
import { orm } from "../../../../shared/db/client";
import { deleteSession, rosterMembers } from "../../../../shared/db/sessions";
import { AppError } from "../../../../shared/errors";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { errorResponses, json, SwitchBody } from "../schemas";
import { requireSession } from "../session-context";

export const rosterSignoutRoutes = routeGroup<AuthEnv>();

rosterSignoutRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/roster/signout",
    summary: "Sign another account of this browser's roster out (the active one stays)",
    middleware: [rateLimit({ bucket: "roster-signout", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { body: jsonRequest(SwitchBody) },
    responses: {
      200: json(z.object({ ok: z.literal(true) }), "Signed out"),
      ...errorResponses("invalid_body", "not_authenticated", "not_in_roster", "already_active", "cross_site_blocked"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session, claims } = await requireSession(c, now);
    const { did_oc } = c.req.valid("json");
    if (did_oc === claims.did_oc) {
      throw new AppError("already_active", {
        detail: "sign the active account out with /api/auth/logout?scope=current",
      });
    }
    const db = orm(c.env.DB);
    const members = session.rosterId === null ? [] : await rosterMembers(db, session.rosterId, now);
    const target = members.find((m) => m.account.didOc === did_oc);
    if (!target) throw new AppError("not_in_roster");
    await deleteSession(db, target.session);
    await accountEvent(db, {
      accountId: target.account.id,
      eventType: "session.signed_out",
      sessionId: session.id,
      detail: { by: claims.did_oc },
      now,
    });
    return c.json({ ok: true as const }, 200);
  },
);
