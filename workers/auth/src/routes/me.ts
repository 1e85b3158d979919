// GET /api/auth/me: the active account and the rest of the browser's roster.
import { createRoute } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { meRoute } from "../../../../shared/auth/session-routes";
import { accountView } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { rosterMembers } from "../../../../shared/db/sessions";
import { AppError } from "../../../../shared/errors";
import { isoMs } from "../../../../shared/time";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { requireSession } from "../session-context";

export const meRoutes = routeGroup<AuthEnv>();

/** Per-browser answers, errors included, must never be stored by a shared cache. */
const privateAnswer: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set("Cache-Control", "no-store, private");
  c.res.headers.set("Vary", "Cookie");
};

meRoutes.openapi(createRoute({ ...meRoute, middleware: [privateAnswer] }), async (c) => {
  const now = Date.now();
  const { session } = await requireSession(c, now);
  const db = orm(c.env.DB);
  const members = session.rosterId ? await rosterMembers(db, session.rosterId, now) : [];
  const active = members.find((m) => m.account.id === session.accountId)?.account;
  const account = active ?? (await db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, session.accountId) }));
  if (!account) throw new AppError("not_authenticated");
  const roster = await Promise.all(
    members
      .filter((m) => m.account.id !== session.accountId)
      .map(async (m) => ({ ...(await accountView(db, m.account)), last_seen_at: isoMs(m.session.lastSeenAt) })),
  );
  return c.json({ ok: true as const, account: await accountView(db, account), roster }, 200);
});
