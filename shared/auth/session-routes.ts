// The two session routes the fleet worker forwards to the auth host (`/api/auth/me`, `/api/auth/logout`), as OpenAPI
// definitions without handlers or middleware and without side effects: the auth host serves them (its routes/me.ts,
// logout.ts), and the fleet's document lists the same definitions, so the two descriptions cannot drift apart.
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, json } from "../http/openapi";
import { LogoutQuery, LogoutResult, MeResult } from "./session-schemas";

export const meRoute = createRoute({
  method: "get",
  path: "/api/auth/me",
  summary: "The signed-in account and the other accounts of this browser's roster",
  responses: { 200: json(MeResult, "Signed in"), ...errorResponses("not_authenticated") },
});

export const logoutRoute = createRoute({
  method: "post",
  path: "/api/auth/logout",
  summary: "Sign out the active account (scope=current) or every account of the browser (scope=all, default)",
  request: { query: LogoutQuery },
  responses: {
    200: json(LogoutResult, "Signed out; switched_to names the account now active, or null"),
    ...errorResponses("invalid_query", "cross_site_blocked", "rate_limited"),
  },
});

export const SESSION_ROUTES = [meRoute, logoutRoute] as const;
