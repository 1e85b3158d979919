// PATCH /api/auth/account: edit the active account's display name and display identity; re-mints the cookie.

import { createRoute } from "@hono/zod-openapi";
import type { DisplayIdentityKind } from "../../../../shared/auth/session-token";
import { displayValue, updateAccount } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { reissueSession } from "../../../../shared/db/sessions";
import { AppError } from "../../../../shared/errors";
import { jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { AccountPatchBody, AccountResult, errorResponses, json } from "../schemas";
import { requireSession, setSessionCookie } from "../session-context";

export const accountRoutes = routeGroup<AuthEnv>();

accountRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/api/auth/account",
    summary: "Edit the active account (display_name, display_identity kind)",
    middleware: [rateLimit({ bucket: "account", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { body: jsonRequest(AccountPatchBody) },
    responses: {
      200: json(AccountResult, "Updated; the cookie is re-issued with the new display claims"),
      ...errorResponses(
        "invalid_body",
        "no_fields_to_update",
        "identity_not_linked",
        "not_authenticated",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const now = Date.now();
    const { session } = await requireSession(c, now);
    if (body.display_name === undefined && body.display_identity === undefined)
      throw new AppError("no_fields_to_update");
    const db = orm(c.env.DB);
    const changes: { displayName?: string | null; displayIdentityKind?: DisplayIdentityKind } = {};
    if (body.display_name !== undefined) changes.displayName = body.display_name;
    if (body.display_identity !== undefined) {
      const account = await db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, session.accountId) });
      if (!account || (await displayValue(db, account, body.display_identity)) === undefined) {
        throw new AppError("identity_not_linked", { detail: `no ${body.display_identity} identity on this account` });
      }
      changes.displayIdentityKind = body.display_identity;
    }
    const updated = await updateAccount(db, session.accountId, changes, now);
    const issued = updated && (await reissueSession(db, session, now));
    if (!updated || !issued) throw new AppError("not_authenticated");
    return c.json({ ok: true as const, account: await setSessionCookie(c, updated, issued, now) }, 200);
  },
);
