// The apps that sign people in through this host (issue 33), as the account page manages them: an account registers
// its own apps (the client secret of a confidential one appears once, in the 201), lists and revokes them (revoking
// deletes the client from the library, which revokes every grant and token it holds); and it lists the apps it has
// allowed and takes an allowance back (the consent, and every grant the app holds for this account).
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { Context } from "hono";
import { orm } from "../../../../shared/db/client";
import { oidcClients, oidcConsents } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../../../shared/rate-limit/rules";
import { isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { grantedScopes } from "../oidc/claims";
import { oidcKey } from "../oidc/keys";
import { ClientCreate, ClientIdParam, ClientSchema, ConsentSchema } from "../oidc/schemas";
import { oauthApi } from "../oidc/server";
import { type ClientRow, clientsOf, consentsOf, forgetConsent } from "../oidc/store";
import { requireSession } from "../session-context";

export const oidcClientRoutes = routeGroup<AuthEnv>();

const clientView = (row: ClientRow) => ({
  client_id: row.clientId,
  name: row.name,
  type: row.clientType as "public" | "confidential",
  redirect_uris: JSON.parse(row.redirectUris) as string[],
  logo_uri: row.logoUri,
  created_at: isoMs(row.createdAt),
});

/** Every grant the library holds for the account and the client, revoked. */
async function revokeGrants(c: Context<AuthEnv>, accountId: string, clientId: string) {
  const api = await oauthApi(c.env);
  let cursor: string | undefined;
  do {
    const page = await api.listUserGrants(accountId, { limit: 100, ...(cursor ? { cursor } : {}) });
    for (const grant of page.items) if (grant.clientId === clientId) await api.revokeGrant(grant.id, accountId);
    cursor = page.cursor;
  } while (cursor);
}

oidcClientRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/oidc/clients",
    summary: "The signed-in account's apps registered to sign people in with this host (never their secrets)",
    middleware: [rateLimit({ bucket: "oidc-clients", rule: READ_RULE, failClosed: false })],
    responses: {
      200: json(z.object({ ok: z.literal(true), clients: z.array(ClientSchema) }), "The apps"),
      ...errorResponses("not_authenticated"),
    },
  }),
  async (c) => {
    const { session } = await requireSession(c, Date.now());
    const rows = await clientsOf(orm(c.env.DB), session.accountId);
    return c.json({ ok: true as const, clients: rows.map(clientView) }, 200);
  },
);

oidcClientRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/oidc/clients",
    summary: "Register an app that signs people in with this host; a confidential app's secret is in this answer only",
    middleware: [
      rateLimit({ bucket: "oidc-clients-create", rule: AUTH_RULE, failClosed: true }),
      sameOrigin(),
      jsonBody,
    ],
    request: { body: jsonRequest(ClientCreate) },
    responses: {
      201: json(
        z.object({ ok: z.literal(true), client: ClientSchema, client_secret: z.string().nullable() }),
        "Registered: client_secret is null for a public app",
      ),
      ...errorResponses("invalid_body", "not_authenticated", "cross_site_blocked", "oidc_not_configured"),
    },
  }),
  async (c) => {
    await oidcKey(c.env);
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const input = c.req.valid("json");
    const redirectUris = [...new Set(input.redirect_uris)];
    const api = await oauthApi(c.env);
    let created: Awaited<ReturnType<typeof api.createClient>>;
    try {
      created = await api.createClient({
        clientName: input.name,
        redirectUris,
        ...(input.logo_uri ? { logoUri: input.logo_uri } : {}),
        // A confidential app's method is left unnamed: the library then takes its secret by either method discovery
        // announces (client_secret_basic or client_secret_post, openid-client's default); named, it took one only.
        ...(input.type === "public" ? { tokenEndpointAuthMethod: "none" } : {}),
        grantTypes: ["authorization_code", "refresh_token"],
        responseTypes: ["code"],
      });
    } catch (err) {
      // The library's own redirect URI policy (a scheme, host or form it refuses).
      throw new AppError("invalid_body", { detail: err instanceof Error ? err.message : "the app was refused" });
    }
    const row: ClientRow = {
      clientId: created.clientId,
      accountId: session.accountId,
      name: input.name,
      logoUri: input.logo_uri ?? null,
      clientType: input.type,
      redirectUris: JSON.stringify(redirectUris),
      createdAt: now,
      revokedAt: null,
    };
    await orm(c.env.DB).insert(oidcClients).values(row);
    return c.json({ ok: true as const, client: clientView(row), client_secret: created.clientSecret ?? null }, 201);
  },
);

oidcClientRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/oidc/clients/{id}",
    summary: "Revoke an app: it can no longer sign anyone in, and every token it holds stops working",
    middleware: [rateLimit({ bucket: "oidc-clients-delete", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    request: { params: ClientIdParam },
    responses: {
      200: json(z.object({ ok: z.literal(true), revoked: z.string() }), "Revoked"),
      ...errorResponses("invalid_id", "not_authenticated", "not_found", "cross_site_blocked"),
    },
  }),
  async (c) => {
    const now = Date.now();
    const { session } = await requireSession(c, now);
    const { id } = c.req.valid("param");
    const db = orm(c.env.DB);
    // Marked first: from here on userinfo and the token endpoint refuse the app, whatever KV still holds.
    const marked = await db
      .update(oidcClients)
      .set({ revokedAt: now })
      .where(and(eq(oidcClients.clientId, id), eq(oidcClients.accountId, session.accountId)))
      .returning({ clientId: oidcClients.clientId });
    if (marked.length === 0) throw new AppError("not_found");
    await db.delete(oidcConsents).where(eq(oidcConsents.clientId, id));
    await (await oauthApi(c.env)).deleteClient(id);
    return c.json({ ok: true as const, revoked: id }, 200);
  },
);

oidcClientRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/oidc/consents",
    summary: "The apps the signed-in account allowed to sign it in, and what each may read",
    middleware: [rateLimit({ bucket: "oidc-consents", rule: READ_RULE, failClosed: false })],
    responses: {
      200: json(z.object({ ok: z.literal(true), consents: z.array(ConsentSchema) }), "The apps allowed"),
      ...errorResponses("not_authenticated"),
    },
  }),
  async (c) => {
    const { session } = await requireSession(c, Date.now());
    const rows = await consentsOf(orm(c.env.DB), session.accountId);
    const consents = rows.map((r) => ({
      client_id: r.clientId,
      name: r.name,
      logo_uri: r.logoUri,
      scopes: grantedScopes(r.scopes.split(" ")),
      created_at: isoMs(r.createdAt),
    }));
    return c.json({ ok: true as const, consents }, 200);
  },
);

oidcClientRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/oidc/consents/{id}",
    summary: "Take back an app's allowance: it asks again next time, and the tokens it holds for this account stop",
    middleware: [rateLimit({ bucket: "oidc-consents-delete", rule: AUTH_RULE, failClosed: true }), sameOrigin()],
    request: { params: ClientIdParam },
    responses: {
      200: json(z.object({ ok: z.literal(true), revoked: z.string() }), "Taken back"),
      ...errorResponses("invalid_id", "not_authenticated", "not_found", "cross_site_blocked"),
    },
  }),
  async (c) => {
    const { session } = await requireSession(c, Date.now());
    const { id } = c.req.valid("param");
    const removed = await forgetConsent(orm(c.env.DB), session.accountId, id).returning({
      clientId: oidcConsents.clientId,
    });
    if (removed.length === 0) throw new AppError("not_found");
    await revokeGrants(c, session.accountId, id);
    return c.json({ ok: true as const, revoked: id }, 200);
  },
);
