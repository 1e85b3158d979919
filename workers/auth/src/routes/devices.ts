// The devices of the active account (issue 46, item 1): GET /api/auth/devices lists its live sessions, one per
// browser (what it is, roughly where it signed in, how, when, when last seen, and which is this one); DELETE
// /api/auth/devices/{id} signs one other browser out; POST /api/auth/devices/sign-out-others signs every other one
// out. The id is the session row's id, which no cookie carries (a cookie names a jti, whose hash the row keeps), and
// only the account's own rows are found by it. Signing out takes power away, so it needs no fresh proof (as the
// roster's sign-out); this browser signs out with POST /api/auth/logout. A removed row refuses its cookie at once on
// every host (each checks the row; DECISIONS 9).
import { createRoute, z } from "@hono/zod-openapi";
import { accountEvent } from "../../../../shared/db/account-events";
import { orm } from "../../../../shared/db/client";
import { deviceSessions, endDeviceSession, endOtherDeviceSessions } from "../../../../shared/db/devices";
import type { SessionRow } from "../../../../shared/db/sessions";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs } from "../../../../shared/time";
import { routeGroup } from "../../../../shared/validate";
import { describeAgent } from "../device-label";
import type { AuthEnv } from "../env";
import { requireSession } from "../session-context";

export const deviceRoutes = routeGroup<AuthEnv>();

const Device = z
  .object({
    id: z.string().openapi({ description: "Opaque; names the device in DELETE /api/auth/devices/{id}" }),
    browser: z.string().openapi({ example: "Firefox 126" }),
    system: z.string().openapi({ example: "macOS 14.4" }),
    type: z.string().openapi({ description: "desktop | mobile | tablet | tv | bot | unknown" }),
    place: z.string().nullable().openapi({ description: "Approximate, from the sign-in's network; null if unknown" }),
    auth_method: z.string().nullable().openapi({ description: "bip322 | email | provider | passkey | recovery" }),
    signed_in_at: z.string().openapi({ description: "When this browser's session started (ISO 8601)" }),
    last_seen_at: z.string().openapi({ description: "Written at most once per 5 minutes of use" }),
    current: z.boolean().openapi({ description: "This browser" }),
  })
  .openapi("Device");

const DevicesResult = z.object({ ok: z.literal(true), devices: z.array(Device) }).openapi("DevicesResult");
const SignedOutResult = z.object({ ok: z.literal(true), signed_out: z.number().int() }).openapi("DevicesSignedOut");
const DeviceParams = z.object({
  id: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, "a device id")
    .openapi({ param: { name: "id", in: "path" } }),
});

function deviceView(row: SessionRow, currentId: string): z.infer<typeof Device> {
  return {
    id: row.id,
    ...describeAgent(row.userAgent),
    place: row.place,
    auth_method: row.authMethod,
    signed_in_at: isoMs(row.createdAt),
    last_seen_at: isoMs(row.lastSeenAt),
    current: row.id === currentId,
  };
}

deviceRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/auth/devices",
    summary: "Where the active account is signed in: its live sessions, one per browser, this one marked",
    middleware: [rateLimit({ bucket: "devices", rule: READ_RULE, failClosed: true })],
    responses: {
      200: json(DevicesResult, "Most recently seen first"),
      ...errorResponses("not_authenticated", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    c.header("Cache-Control", "no-store, private");
    const rows = await deviceSessions(orm(c.env.DB), session.accountId, now);
    return c.json({ ok: true as const, devices: rows.map((row) => deviceView(row, session.id)) }, 200);
  },
);

deviceRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/auth/devices/{id}",
    summary: "Sign the active account out of another browser",
    description:
      "Its session ends at once on every host that accepts the cookie. This browser is 409 device_is_current: " +
      "sign it out with POST /api/auth/logout?scope=current. A device of another account is 404, as one that " +
      "never existed.",
    middleware: [rateLimit({ bucket: "devices-signout", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    request: { params: DeviceParams },
    responses: {
      200: json(z.object({ ok: z.literal(true) }), "Signed out"),
      ...errorResponses(
        "invalid_id",
        "not_authenticated",
        "not_found",
        "device_is_current",
        "cross_site_blocked",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session, claims } = await requireSession(c, now);
    const { id } = c.req.valid("param");
    if (id === session.id) throw new AppError("device_is_current");
    const db = orm(c.env.DB);
    if (!(await endDeviceSession(db, session.accountId, id))) {
      throw new AppError("not_found", { detail: "no such device on the active account" });
    }
    await accountEvent(db, {
      accountId: session.accountId,
      eventType: "session.signed_out",
      sessionId: session.id,
      detail: { by: claims.did_oc, device: id },
      now,
    });
    return c.json({ ok: true as const }, 200);
  },
);

deviceRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/auth/devices/sign-out-others",
    summary: "Sign the active account out of every browser but this one",
    description: "Other accounts those browsers hold stay signed in; this browser's session stays as it is.",
    middleware: [rateLimit({ bucket: "devices-signout", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    responses: {
      200: json(SignedOutResult, "How many sessions ended"),
      ...errorResponses("not_authenticated", "cross_site_blocked", "rate_limited"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session, claims } = await requireSession(c, now);
    const db = orm(c.env.DB);
    const count = await endOtherDeviceSessions(db, session.accountId, session.id);
    if (count > 0) {
      await accountEvent(db, {
        accountId: session.accountId,
        eventType: "session.signed_out",
        sessionId: session.id,
        detail: { by: claims.did_oc, others: count },
        now,
      });
    }
    return c.json({ ok: true as const, signed_out: count }, 200);
  },
);
