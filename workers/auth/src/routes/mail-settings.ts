// The account's mail settings (issue 46, item 2): GET /api/auth/mail-settings, PATCH it. Only the notices that are not
// about the account's safety can be turned off (today: "an app was allowed to sign you in"); the rest are listed as
// always sent, so the page can say so. Turning a notice off gives no one power, so it needs no fresh proof.
import { createRoute, z } from "@hono/zod-openapi";
import { orm } from "../../../../shared/db/client";
import { mailPreferences, setMailPreferences } from "../../../../shared/db/devices";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { requireSession } from "../session-context";

export const mailSettingsRoutes = routeGroup<AuthEnv>();

/** The notices every address is always sent: each is about who can reach the account. */
export const ALWAYS_SENT = [
  "new_device",
  "key_added",
  "key_removed",
  "identity_linked",
  "identity_unlinked",
  "recovery_changed",
  "merged",
  "deletion_scheduled",
] as const;

const Settings = z
  .strictObject({
    app_allowed: z.boolean().openapi({ description: "Mail when an app is allowed to sign you in" }),
  })
  .openapi("MailSettings");

const SettingsResult = z
  .object({
    ok: z.literal(true),
    settings: Settings,
    always_sent: z.array(z.enum(ALWAYS_SENT)).openapi({ description: "Notices about the account's safety" }),
  })
  .openapi("MailSettingsResult");

const answer = (settings: z.infer<typeof Settings>) => ({
  ok: true as const,
  settings,
  always_sent: [...ALWAYS_SENT],
});

mailSettingsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/mail-settings",
    summary: "Which account notices are mailed (the optional ones, and those always sent)",
    middleware: [rateLimit({ bucket: "mail-settings", rule: READ_RULE, failClosed: true })],
    responses: {
      200: json(SettingsResult, "The settings"),
      ...errorResponses("not_authenticated", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    c.header("Cache-Control", "no-store, private");
    return c.json(answer(await mailPreferences(orm(c.env.DB), session.accountId)), 200);
  },
);

mailSettingsRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/api/auth/mail-settings",
    summary: "Turn the optional account notices on or off",
    middleware: [rateLimit({ bucket: "mail-settings-set", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { body: jsonRequest(Settings) },
    responses: {
      200: json(SettingsResult, "Saved"),
      ...errorResponses("invalid_body", "not_authenticated", "cross_site_blocked", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const settings = c.req.valid("json");
    await setMailPreferences(orm(c.env.DB), session.accountId, settings, now);
    return c.json(answer(settings), 200);
  },
);
