// Who is calling the fleet: a project API token (Authorization: Bearer) or the auth host's session cookie,
// bearer first (service-spec Authentication 2-3). A malformed bearer is anonymous; a well-formed one that is
// unknown, revoked, expired, or whose creator is no longer an owner of its project is 401 `unauthenticated`
// (DECISIONS 12). A cookie counts only while its session row is live.
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { resolveSession } from "../../../shared/auth/current-session";
import { sha256Hex } from "../../../shared/crypto/digest";
import { type PublicJwk, parsePreviousKeys, sessionKeysOf } from "../../../shared/crypto/signing-key";
import { orm } from "../../../shared/db/client";
import { apiTokens, members } from "../../../shared/db/schema";
import { AppError } from "../../../shared/errors";
import type { Caller, FleetBindings, FleetEnv } from "./env";
import { TOKEN_SECRET } from "./ids";
import { storedScope } from "./roles";

/** `last_used_at` is written at most this often per token, after the answer (never on the request path). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** How long this isolate keeps the auth host's JWKS before reading it again (the JWKS's own max-age). */
const JWKS_TTL_MS = 5 * 60 * 1000;
let jwksCache: { keys: PublicJwk[]; at: number } | undefined;

async function authKeys(env: FleetBindings, now: number): Promise<PublicJwk[]> {
  if (env.AUTH_PUBLIC_KEYS) return parsePreviousKeys(env.AUTH_PUBLIC_KEYS);
  if (jwksCache && now - jwksCache.at < JWKS_TTL_MS) return jwksCache.keys;
  const res = await env.AUTH.fetch(new Request(`${env.AUTH_ORIGIN}/api/auth/jwks`));
  if (!res.ok) throw new AppError("unauthenticated", { detail: "auth host keys unavailable" });
  const body = (await res.json()) as { keys?: unknown };
  jwksCache = { keys: sessionKeysOf(body.keys), at: now };
  return jwksCache.keys;
}

function bearer(c: Context): string | undefined {
  const header = c.req.header("authorization");
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1] && TOKEN_SECRET.test(match[1]) ? match[1] : undefined;
}

async function tokenCaller(c: Context<FleetEnv>, secret: string, now: number): Promise<Caller> {
  const db = orm(c.env.DB);
  // One read: the token, and whether its creator is an owner of the token's project right now.
  const row = await db
    .select({ token: apiTokens, creatorRole: members.role })
    .from(apiTokens)
    .leftJoin(members, and(eq(members.projectId, apiTokens.projectId), eq(members.address, apiTokens.createdBy)))
    .where(eq(apiTokens.tokenHash, await sha256Hex(secret)))
    .get();
  if (!row || row.token.revokedAt !== null || row.token.expiresAt <= now) {
    throw new AppError("unauthenticated", { detail: "API token unknown, revoked or expired" });
  }
  if (row.creatorRole !== "owner") {
    throw new AppError("unauthenticated", { detail: "the token's creator is no longer an owner of the project" });
  }
  const { token } = row;
  if (token.lastUsedAt === null || now - token.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    // Conditional, so concurrent requests of one token write it once per resolution window.
    const stale = or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, now - LAST_USED_RESOLUTION_MS));
    const write = db
      .update(apiTokens)
      .set({ lastUsedAt: now })
      .where(and(eq(apiTokens.id, token.id), stale));
    c.executionCtx.waitUntil(write.run().then(noop, noop));
  }
  return {
    kind: "token",
    tokenId: token.id,
    projectId: token.projectId,
    address: token.createdBy,
    scope: storedScope(token.scope),
  };
}

const noop = () => undefined;

/** Resolves the caller once per request into c.var.caller (undefined = anonymous). */
export const identifyCaller: MiddlewareHandler<FleetEnv> = async (c, next) => {
  const now = Date.now();
  const secret = bearer(c);
  let caller: Caller | undefined;
  if (secret) {
    caller = await tokenCaller(c, secret, now);
  } else if (c.req.header("cookie")) {
    const db = orm(c.env.DB);
    const current = await resolveSession(db, c.req.header("cookie"), {
      keys: await authKeys(c.env, now),
      issuer: c.env.AUTH_ORIGIN,
      now,
    });
    if (current) {
      caller = { kind: "session", accountId: current.session.accountId, address: current.primaryBtc };
    }
  }
  c.set("caller", caller);
  await next();
};

export function requireCaller(c: Context<FleetEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new AppError("unauthenticated");
  return caller;
}

/** True when the request authenticated with a bearer token (exempt from the same-origin rule). */
export function hasBearer(c: Context): boolean {
  return bearer(c) !== undefined;
}
