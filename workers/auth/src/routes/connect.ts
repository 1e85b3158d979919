// Connect: an integrator registers an app (its API key shown once, rotatable) and provisions a did:oc for each of
// its own users, server to server, idempotently per (app, user_id). The accounts are held by the service.
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { Context } from "hono";
import { randomHex, sha256Hex } from "../../../../shared/crypto/digest";
import { accountByIdentity, findOrCreateAccount } from "../../../../shared/db/accounts";
import { orm } from "../../../../shared/db/client";
import { accounts, connectApps, connectUsers } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { requireSession } from "../session-context";

export const connectRoutes = routeGroup<AuthEnv>();
const KEY = /^ocak_[0-9a-f]{64}$/;
const AppSchema = z
  .object({ id: z.string(), name: z.string(), created_at: z.string(), rotated_at: z.string().nullable() })
  .openapi("ConnectApp");
type AppRow = typeof connectApps.$inferSelect;
const appView = (a: AppRow) => ({
  id: a.id,
  name: a.name,
  created_at: isoMs(a.createdAt),
  rotated_at: a.rotatedAt === null ? null : isoMs(a.rotatedAt),
});

async function newKey() {
  const key = `ocak_${randomHex(32)}`;
  return { key, keyHash: await sha256Hex(key) };
}

async function ownedApp(c: Context<AuthEnv>, id: string, now: number) {
  const { session } = await requireSession(c, now);
  const app = await orm(c.env.DB)
    .select()
    .from(connectApps)
    .where(and(eq(connectApps.id, id), eq(connectApps.ownerAccountId, session.accountId)))
    .get();
  if (!app) throw new AppError("not_found");
  return app;
}

connectRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/connect/apps",
    summary: "The signed-in integrator's Connect apps (never their keys)",
    middleware: [rateLimit({ bucket: "connect-apps", rule: READ_RULE, failClosed: false })],
    responses: {
      200: json(z.object({ ok: z.literal(true), apps: z.array(AppSchema) }), "Apps"),
      ...errorResponses("not_authenticated"),
    },
  }),
  async (c) => {
    const { session } = await requireSession(c, Date.now());
    const rows = await orm(c.env.DB)
      .select()
      .from(connectApps)
      .where(eq(connectApps.ownerAccountId, session.accountId));
    return c.json({ ok: true as const, apps: rows.map(appView) }, 200);
  },
);

connectRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/connect/apps",
    summary: "Register a Connect app; its API key is in this answer and never again",
    middleware: [
      rateLimit({ bucket: "connect-apps-create", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { body: jsonRequest(z.strictObject({ name: z.string().trim().min(1).max(100) })) },
    responses: {
      201: json(z.object({ ok: z.literal(true), app: AppSchema, key: z.string() }), "Registered"),
      ...errorResponses("invalid_body", "not_authenticated", "cross_site_blocked"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const { key, keyHash } = await newKey();
    const app: AppRow = {
      id: `app_${randomHex(12)}`,
      ownerAccountId: session.accountId,
      name: c.req.valid("json").name,
      keyHash,
      createdAt: now,
      rotatedAt: null,
    };
    await orm(c.env.DB).insert(connectApps).values(app);
    return c.json({ ok: true as const, app: appView(app), key }, 201);
  },
);

connectRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/connect/apps/{id}/rotate",
    summary: "Replace an app's API key: the new key is in this answer, the old one stops working at once",
    middleware: [rateLimit({ bucket: "connect-apps-rotate", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    request: { params: z.object({ id: z.string().regex(/^app_[0-9a-f]{24}$/, "must be app_ followed by 24 hex") }) },
    responses: {
      200: json(z.object({ ok: z.literal(true), app: AppSchema, key: z.string() }), "Rotated"),
      ...errorResponses("invalid_id", "not_authenticated", "not_found", "cross_site_blocked"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const app = await ownedApp(c, c.req.valid("param").id, now);
    const { key, keyHash } = await newKey();
    await orm(c.env.DB).update(connectApps).set({ keyHash, rotatedAt: now }).where(eq(connectApps.id, app.id));
    return c.json({ ok: true as const, app: appView({ ...app, keyHash, rotatedAt: now }), key }, 200);
  },
);

connectRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/connect/provision",
    summary: "Server to server (Authorization: Bearer <app key>): the did:oc of one of the app's users, created once",
    middleware: [
      rateLimit({ bucket: "connect-provision", rule: { capacity: 600, windowMs: 60_000 }, failClosed: true }),
      jsonBody,
    ],
    request: {
      body: jsonRequest(
        z.strictObject({ user_id: z.string().min(1).max(200), email: z.string().trim().max(254).email().optional() }),
      ),
    },
    responses: {
      200: json(
        z.object({ ok: z.literal(true), did_oc: z.string(), is_new: z.boolean() }),
        "Provisioned (is_new false when it existed)",
      ),
      ...errorResponses("invalid_body", "unauthorized"),
    },
  }),
  async (c) => {
    const key = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1] ?? "";
    if (!KEY.test(key)) throw new AppError("unauthorized");
    const db = orm(c.env.DB);
    const app = await db
      .select()
      .from(connectApps)
      .where(eq(connectApps.keyHash, await sha256Hex(key)))
      .get();
    if (!app) throw new AppError("unauthorized");
    const { user_id, email } = c.req.valid("json");
    const now = Date.now();
    const identity = { kind: `connect:${app.id}`, value: user_id };
    const existing = await accountByIdentity(db, identity.kind, identity.value);
    const account = existing ?? (await findOrCreateAccount(db, identity, { displayIdentityKind: "did" }, now));
    // The email is the integrator's word, not proof: it is kept as contact data of the app's user and never becomes
    // a sign-in identity (only its holder, with a mailed code, can make it one), so nobody can pre-claim an address.
    await db
      .insert(connectUsers)
      .values({
        appId: app.id,
        userId: user_id,
        accountId: account.id,
        email: email?.toLowerCase() ?? null,
        createdAt: now,
      })
      .onConflictDoNothing();
    const row = await db.select({ didOc: accounts.didOc }).from(accounts).where(eq(accounts.id, account.id)).get();
    return c.json({ ok: true as const, did_oc: row?.didOc ?? account.didOc, is_new: !existing }, 200);
  },
);
