// POST /api/auth/logout?scope=current|all (default all), per the browser-session state table.
import { createRoute } from "@hono/zod-openapi";
import { logoutRoute } from "../../../../shared/auth/session-routes";
import { orm } from "../../../../shared/db/client";
import { deleteRoster, deleteSession, reissueSession, rosterMembers } from "../../../../shared/db/sessions";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { clearSessionCookie, currentSession, setSessionCookie } from "../session-context";

export const logoutRoutes = routeGroup<AuthEnv>();

logoutRoutes.openapi(
  createRoute({
    ...logoutRoute,
    middleware: [rateLimit({ bucket: "logout", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
  }),
  async (c) => {
    const scope = c.req.valid("query").scope ?? "all";
    const now = Date.now();
    const current = await currentSession(c, now);
    const db = orm(c.env.DB);
    if (current) {
      const { session } = current;
      if (scope === "all" && session.rosterId !== null) {
        await deleteRoster(db, session.rosterId);
      } else {
        await deleteSession(db, session);
        if (session.rosterId !== null) {
          // Promote the most recently seen account left in the roster, with a fresh session of its own.
          for (const next of await rosterMembers(db, session.rosterId, now)) {
            const issued = await reissueSession(db, next.session, now);
            if (!issued) continue;
            const account = await setSessionCookie(c, next.account, issued, now);
            return c.json({ ok: true as const, switched_to: account.did_oc }, 200);
          }
        }
      }
    }
    clearSessionCookie(c);
    return c.json({ ok: true as const, switched_to: null }, 200);
  },
);
