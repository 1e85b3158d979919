// GET /api/auth/account/log: the active account's log (issue 27), newest first: every change to how the account is
// reached (identities, hardware keys, recovery address, re-authentications, merges), which session made it and
// when. Never a secret. Paged with `before` (the last seq seen).
import { createRoute } from "@hono/zod-openapi";
import { accountLog, isAccountEventType } from "../../../../shared/db/account-events";
import { orm } from "../../../../shared/db/client";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs } from "../../../../shared/time";
import { routeGroup } from "../../../../shared/validate";
import { AccountLogQuery, AccountLogResult } from "../account-schemas";
import type { AuthEnv } from "../env";
import { errorResponses, json } from "../schemas";
import { requireSession } from "../session-context";

export const accountLogRoutes = routeGroup<AuthEnv>();
const DEFAULT_LIMIT = 50;

accountLogRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/account/log",
    summary: "The active account's security log, newest first (who, what, when, from which session)",
    middleware: [rateLimit({ bucket: "account-log", rule: AUTH_RULE, failClosed: true })],
    request: { query: AccountLogQuery },
    responses: {
      200: json(AccountLogResult, "A page of the log; next_before continues it"),
      ...errorResponses("invalid_query", "not_authenticated"),
    },
  }),
  async (c) => {
    const { limit = DEFAULT_LIMIT, before } = c.req.valid("query");
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const rows = await accountLog(orm(c.env.DB), session.accountId, limit + 1, before);
    const page = rows.slice(0, limit);
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        ok: true as const,
        events: page.flatMap((e) => {
          // Every row is written by this code with a known type; one that is not is left out, never guessed.
          if (!isAccountEventType(e.eventType)) return [];
          return [
            {
              seq: e.seq,
              event_type: e.eventType,
              detail: e.detail === null ? null : (JSON.parse(e.detail) as Record<string, unknown>),
              session: e.sessionId,
              this_session: e.sessionId === session.id,
              at: isoMs(e.createdAt),
            },
          ];
        }),
        next_before: rows.length > limit ? (page.at(-1)?.seq ?? null) : null,
      },
      200,
    );
  },
);
