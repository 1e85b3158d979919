// Per-project API tokens (DECISIONS 13): the secret `ock_…` is shown once at creation and stored as sha256;
// revoke and restore (409 expired_cannot_restore past expires_at), rename, delete. Admins and owners manage them.
import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq } from "drizzle-orm";
import type { Context } from "hono";
import { sha256Hex } from "../../../../shared/crypto/digest";
import { orm } from "../../../../shared/db/client";
import { apiTokens } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { DAY } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { atLeast, projectAccess } from "../access";
import { logEntry } from "../admin-log";
import type { FleetEnv } from "../env";
import { newId, newTokenSecret } from "../ids";
import { routeLimit } from "../limits";
import { afterCursor, DEFAULT_LIMIT, page } from "../pagination";
import { IdParam, listOf, okWith, ProjectListQuery, TokenCreate, TokenId, TokenPatch, TokenSchema } from "../schemas";
import { tokenView } from "../views";

/** Lifetime of a token created without expires_at (DECISIONS 13). */
export const DEFAULT_TOKEN_TTL_MS = 90 * DAY;

export const tokenRoutes = routeGroup<FleetEnv>();
const TokenResult = okWith({ token: TokenSchema });
const TOKEN_ERRORS = ["invalid_body", "unauthenticated", "role_forbidden", "not_found"] as const;

async function tokenAccess(c: Context<FleetEnv>, id: string) {
  const row = await orm(c.env.DB).select().from(apiTokens).where(eq(apiTokens.id, id)).get();
  if (!row) throw new AppError("not_found");
  const access = await projectAccess(c, row.projectId, { write: true });
  atLeast(access, "admin");
  return { row, access };
}

tokenRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/tokens",
    summary: "A project's API tokens (never their secrets)",
    middleware: [routeLimit("tokens-list")],
    request: { query: ProjectListQuery },
    responses: { 200: json(listOf("tokens", TokenSchema), "A page of tokens"), ...errorResponses(...TOKEN_ERRORS) },
  }),
  async (c) => {
    const { project_id, limit = DEFAULT_LIMIT, cursor } = c.req.valid("query");
    const access = await projectAccess(c, project_id);
    atLeast(access, "admin");
    const rows = await access.db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.projectId, project_id), afterCursor(cursor, apiTokens.createdAt, apiTokens.id)))
      .orderBy(asc(apiTokens.createdAt), asc(apiTokens.id))
      .limit(limit + 1);
    const { items, next_cursor } = page(rows, limit);
    return c.json({ ok: true as const, tokens: items.map(tokenView), next_cursor }, 200);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/tokens",
    summary: "Create an API token; its secret is in this answer and never again",
    middleware: [routeLimit("tokens-create"), jsonBody],
    request: { body: jsonRequest(TokenCreate) },
    responses: {
      201: json(okWith({ token: TokenSchema, secret: z.string() }), "Created"),
      ...errorResponses(...TOKEN_ERRORS),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const access = await projectAccess(c, input.project_id, { write: true });
    atLeast(access, "admin");
    const now = Date.now();
    const expiresAt = input.expires_at ? Date.parse(input.expires_at) : now + DEFAULT_TOKEN_TTL_MS;
    if (expiresAt <= now) throw new AppError("invalid_body", { detail: "expires_at: must be in the future" });
    const secret = newTokenSecret();
    const token = {
      id: newId("tok"),
      projectId: input.project_id,
      name: input.name,
      tokenHash: await sha256Hex(secret),
      hint: secret.slice(-4),
      createdBy: access.actor,
      expiresAt,
      revokedAt: null,
      lastUsedAt: null,
      scope: "owner",
      createdAt: now,
    };
    const { db } = access;
    await db.batch([
      db.insert(apiTokens).values(token),
      logEntry(db, {
        projectId: token.projectId,
        actor: access.actor,
        eventType: "token.created",
        targetId: token.id,
        detail: { name: token.name },
      }),
    ]);
    return c.json({ ok: true as const, token: tokenView(token), secret }, 201);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/api/tokens/{id}",
    summary: "Rename, revoke (revoked: true) or restore (revoked: false) a token",
    middleware: [routeLimit("tokens-update"), jsonBody],
    request: { params: IdParam(TokenId), body: jsonRequest(TokenPatch) },
    responses: {
      200: json(TokenResult, "Updated"),
      ...errorResponses(...TOKEN_ERRORS, "no_fields_to_update", "expired_cannot_restore"),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { row, access } = await tokenAccess(c, c.req.valid("param").id);
    if (input.name === undefined && input.revoked === undefined) throw new AppError("no_fields_to_update");
    const now = Date.now();
    if (input.revoked === false && row.revokedAt !== null && row.expiresAt <= now) {
      throw new AppError("expired_cannot_restore");
    }
    const changes: Partial<typeof apiTokens.$inferInsert> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.revoked !== undefined) changes.revokedAt = input.revoked ? (row.revokedAt ?? now) : null;
    const { db } = access;
    await db.batch([
      db.update(apiTokens).set(changes).where(eq(apiTokens.id, row.id)),
      logEntry(db, {
        projectId: row.projectId,
        actor: access.actor,
        eventType: "token.updated",
        targetId: row.id,
        detail: { ...input },
      }),
    ]);
    return c.json({ ok: true as const, token: tokenView({ ...row, ...changes }) }, 200);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/tokens/{id}",
    summary: "Delete a token",
    middleware: [routeLimit("tokens-delete")],
    request: { params: IdParam(TokenId) },
    responses: { 200: json(okWith({ deleted: z.string() }), "Deleted"), ...errorResponses(...TOKEN_ERRORS) },
  }),
  async (c) => {
    const { row, access } = await tokenAccess(c, c.req.valid("param").id);
    const { db } = access;
    await db.batch([
      db.delete(apiTokens).where(eq(apiTokens.id, row.id)),
      logEntry(db, {
        projectId: row.projectId,
        actor: access.actor,
        eventType: "token.deleted",
        targetId: row.id,
        detail: { name: row.name },
      }),
    ]);
    return c.json({ ok: true as const, deleted: row.id }, 200);
  },
);
