// Who is calling the fleet: a project API token (Authorization: Bearer) or the auth host's session cookie,
// bearer first (service-spec Authentication 2-3). A malformed bearer is anonymous; a well-formed one that is
// unknown, revoked or expired is 401 `unauthenticated`. A cookie counts only while its session row is live.
import { and, eq } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { resolveSession } from "../../../shared/auth/current-session";
import { sha256Hex } from "../../../shared/crypto/digest";
import { type PublicJwk, parsePreviousKeys, sessionKeysOf } from "../../../shared/crypto/signing-key";
import { orm } from "../../../shared/db/client";
import { accounts, apiTokens, projects } from "../../../shared/db/schema";
import { AppError } from "../../../shared/errors";
import type { FleetBindings, FleetEnv } from "./env";
import { TOKEN_SECRET } from "./ids";

export type Caller =
  | { kind: "token"; tokenId: string; projectId: string; address: string }
  | { kind: "session"; accountId: string; address: string | null };

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

async function tokenCaller(env: FleetBindings, secret: string, now: number): Promise<Caller> {
  const db = orm(env.DB);
  const rows = await db
    .select({ token: apiTokens, owner: projects.ownerAddress })
    .from(apiTokens)
    .innerJoin(projects, eq(projects.id, apiTokens.projectId))
    .where(and(eq(apiTokens.tokenHash, await sha256Hex(secret))))
    .limit(1);
  const row = rows[0];
  if (!row || row.token.revokedAt !== null || row.token.expiresAt <= now) {
    throw new AppError("unauthenticated", { detail: "API token unknown, revoked or expired" });
  }
  // A bearer token acts as the project owner (service-spec Authentication 2).
  return { kind: "token", tokenId: row.token.id, projectId: row.token.projectId, address: row.owner };
}

/** Resolves the caller once per request into c.var.caller (undefined = anonymous). */
export const identifyCaller: MiddlewareHandler<FleetEnv> = async (c, next) => {
  const now = Date.now();
  const secret = bearer(c);
  let caller: Caller | undefined;
  if (secret) {
    caller = await tokenCaller(c.env, secret, now);
  } else if (c.req.header("cookie")) {
    const db = orm(c.env.DB);
    const current = await resolveSession(db, c.req.header("cookie"), {
      keys: await authKeys(c.env, now),
      issuer: c.env.AUTH_ORIGIN,
      now,
    });
    if (current) {
      const account = await db.select().from(accounts).where(eq(accounts.id, current.session.accountId)).get();
      caller = { kind: "session", accountId: current.session.accountId, address: account?.primaryBtc ?? null };
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
