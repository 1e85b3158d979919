// Per-project API tokens (DECISIONS 12, 13): the secret `ock_…` is shown once at creation and stored as sha256.
// A token acts as the owner who created it, so only an owner, signed in, mints, renames or restores one (a token
// cannot: it could mint successors past the one-year cap forever, issue 26); admins and tokens may list, revoke and
// delete (taking power away is safe). Restoring issues a new secret, shown once, to the restoring owner, who becomes
// the token's creator: the old secret never works again. A token whose creator stops being an owner is revoked then
// (d1-migrations/0010's member triggers), so a later re-promotion brings nothing back.
import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq } from "drizzle-orm";
import type { Context } from "hono";
import { sha256Hex } from "../../../../shared/crypto/digest";
import { apiTokens, members } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { DAY, isoMs } from "../../../../shared/time";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import { type Access, atLeast, projectAccess, requireSignedInOwner } from "../access";
import { changeWithLog } from "../admin-log";
import type { FleetEnv } from "../env";
import { newId, newTokenSecret } from "../ids";
import { routeLimit } from "../limits";
import { afterCursor, DEFAULT_LIMIT, page } from "../pagination";
import { findOnShards } from "../registry/shards";
import type { Role } from "../roles";
import { IdParam, listOf, okWith, ProjectListQuery, TokenCreate, TokenId, TokenPatch, TokenSchema } from "../schemas";
import { tokenView } from "../views";

/** Lifetime of a token created without expires_at (DECISIONS 13). */
export const DEFAULT_TOKEN_TTL_MS = 90 * DAY;
/** The longest lifetime a token may be given: a leaked token must die on its own within a year. */
export const MAX_TOKEN_TTL_MS = 365 * DAY;

export const tokenRoutes = routeGroup<FleetEnv>();
const TOKEN_ERRORS = ["invalid_body", "unauthenticated", "role_forbidden", "owner_required", "not_found"] as const;

/** A token row with the current role of its creator in the token's project (null: no longer a member). */
const withCreatorRole = { token: apiTokens, creatorRole: members.role };
const creatorMembership = and(eq(members.projectId, apiTokens.projectId), eq(members.address, apiTokens.createdBy));

async function tokenAccess(c: Context<FleetEnv>, id: string, minimum: Role) {
  const found = (
    await findOnShards(c.env, (db) =>
      db
        .select({ ...withCreatorRole, projectId: apiTokens.projectId })
        .from(apiTokens)
        .leftJoin(members, creatorMembership)
        .where(eq(apiTokens.id, id))
        .get(),
    )
  )?.row;
  if (!found) throw new AppError("not_found");
  const access = await projectAccess(c, found.token.projectId, { write: true });
  atLeast(access, minimum);
  return { row: found.token, creatorRole: found.creatorRole, access };
}

/** The owner a new or adopted token acts as: the signed-in owner, or the owner behind the calling token. */
function ownerAddress(access: Access): string {
  const { address } = access.caller;
  if (!address) throw new AppError("owner_required", { detail: "a token acts as an owner's Bitcoin address" });
  return address;
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
      .select(withCreatorRole)
      .from(apiTokens)
      .leftJoin(members, creatorMembership)
      .where(and(eq(apiTokens.projectId, project_id), afterCursor(cursor, apiTokens.createdAt, apiTokens.id)))
      .orderBy(asc(apiTokens.createdAt), asc(apiTokens.id))
      .limit(limit + 1);
    const { items, next_cursor } = page(
      rows.map((r) => ({ ...r.token, creatorRole: r.creatorRole })),
      limit,
    );
    const now = Date.now();
    return c.json({ ok: true as const, tokens: items.map((t) => tokenView(t, t.creatorRole, now)), next_cursor }, 200);
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
    requireSignedInOwner(access, "minting a token");
    const now = Date.now();
    const expiresAt = input.expires_at ? Date.parse(input.expires_at) : now + DEFAULT_TOKEN_TTL_MS;
    if (expiresAt <= now) throw new AppError("invalid_body", { detail: "expires_at: must be in the future" });
    if (expiresAt > now + MAX_TOKEN_TTL_MS) {
      throw new AppError("invalid_body", { detail: "expires_at: at most 365 days from now" });
    }
    const secret = newTokenSecret();
    const token = {
      id: newId("tok"),
      projectId: input.project_id,
      name: input.name,
      tokenHash: await sha256Hex(secret),
      hint: secret.slice(-4),
      createdBy: ownerAddress(access),
      scope: input.scope ?? "owner",
      expiresAt,
      revokedAt: null,
      lastUsedAt: null,
      createdAt: now,
    };
    await changeWithLog(access, access.db.insert(apiTokens).values(token), {
      eventType: "token.created",
      targetId: token.id,
      detail: { name: token.name, scope: token.scope, expires_at: isoMs(expiresAt) },
    });
    return c.json({ ok: true as const, token: tokenView(token, "owner", now), secret }, 201);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/api/tokens/{id}",
    summary:
      "Rename or restore (revoked: false) a token (an owner, signed in; a restore answers a new secret, once); " +
      "revoke it (revoked: true; admin or owner)",
    middleware: [routeLimit("tokens-update"), jsonBody],
    request: { params: IdParam(TokenId), body: jsonRequest(TokenPatch) },
    responses: {
      200: json(
        okWith({ token: TokenSchema, secret: z.string().optional() }),
        "Updated; `secret` only when the token was restored (the old secret is dead)",
      ),
      ...errorResponses(...TOKEN_ERRORS, "no_fields_to_update", "expired_cannot_restore"),
    },
  }),
  async (c) => {
    const input = c.req.valid("json");
    if (input.name === undefined && input.revoked === undefined) throw new AppError("no_fields_to_update");
    // Only revoking takes power away; renaming and restoring need an owner.
    const revokeOnly = input.name === undefined && input.revoked === true;
    const { row, creatorRole, access } = await tokenAccess(c, c.req.valid("param").id, revokeOnly ? "admin" : "owner");
    if (!revokeOnly) requireSignedInOwner(access, input.name === undefined ? "restoring a token" : "renaming a token");
    const now = Date.now();
    const restored = input.revoked === false && row.revokedAt !== null;
    if (restored && row.expiresAt <= now) throw new AppError("expired_cannot_restore");
    const changes: Partial<typeof apiTokens.$inferInsert> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.revoked === true) changes.revokedAt = row.revokedAt ?? now;
    // A restore is a new secret for the restoring owner, never the old one revived: whoever held the old secret
    // (the reason it was revoked, perhaps) holds nothing, and the token acts as the owner who holds the new one.
    const secret = restored ? newTokenSecret() : undefined;
    if (secret) {
      Object.assign(changes, {
        revokedAt: null,
        tokenHash: await sha256Hex(secret),
        hint: secret.slice(-4),
        createdBy: ownerAddress(access),
      });
    }
    // `revoked: false` on a live token changes nothing: the token as it is, and nothing written or logged.
    if (Object.keys(changes).length === 0)
      return c.json({ ok: true as const, token: tokenView(row, creatorRole, now) }, 200);
    await changeWithLog(access, access.db.update(apiTokens).set(changes).where(eq(apiTokens.id, row.id)), {
      eventType: "token.updated",
      targetId: row.id,
      detail: secret
        ? { ...input, new_secret: true, created_by: { from: row.createdBy, to: changes.createdBy } }
        : { ...input },
    });
    const token = tokenView({ ...row, ...changes }, secret ? "owner" : creatorRole, now);
    return c.json({ ok: true as const, token, ...(secret && { secret }) }, 200);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/api/tokens/{id}",
    summary: "Delete a token (admin or owner)",
    middleware: [routeLimit("tokens-delete")],
    request: { params: IdParam(TokenId) },
    responses: { 200: json(okWith({ deleted: z.string() }), "Deleted"), ...errorResponses(...TOKEN_ERRORS) },
  }),
  async (c) => {
    const { row, access } = await tokenAccess(c, c.req.valid("param").id, "admin");
    await changeWithLog(access, access.db.delete(apiTokens).where(eq(apiTokens.id, row.id)), {
      eventType: "token.deleted",
      targetId: row.id,
      detail: { name: row.name },
    });
    return c.json({ ok: true as const, deleted: row.id }, 200);
  },
);
