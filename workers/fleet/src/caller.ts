// Who is calling the fleet: a project API token (Authorization: Bearer) or the auth host's session cookie,
// bearer first (service-spec Authentication 2-3). A malformed bearer is anonymous; a well-formed one that is
// unknown, revoked, expired, or whose creator is no longer an owner of its project is 401 `unauthenticated`
// (DECISIONS 12). Refused tokens are counted per client address, and an address past its budget is refused 429
// before its next token is looked up (limits.ts). A cookie counts only while its session row is live. On the
// registration routes alone, a token this isolate has read is not read again: their write re-checks it in its own
// batch (registry/guarded-writes.ts).
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { resolveSession } from "../../../shared/auth/current-session";
import { sha256Hex } from "../../../shared/crypto/digest";
import { type Db, orm } from "../../../shared/db/client";
import { apiTokens, members } from "../../../shared/db/schema";
import { AppError } from "../../../shared/errors";
import { backgroundOf, refuseIfKnownEmpty, takeNamed } from "../../../shared/rate-limit/middleware";
import { sessionKeys } from "./auth-keys";
import type { Caller, FleetEnv } from "./env";
import { TOKEN_SECRET } from "./ids";
import { REFUSED_TOKEN_RULE, refusedTokenKey } from "./limits";
import { isGuardedWrite } from "./registry/guarded-writes";
import { findOnShards, knownShard, shardsOf } from "./registry/shards";
import { storedScope } from "./roles";

/** `last_used_at` is written at most this often per token, after the answer (never on the request path). */
export const LAST_USED_RESOLUTION_MS = 60_000;

function bearer(c: Context): string | undefined {
  const header = c.req.header("authorization");
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1] && TOKEN_SECRET.test(match[1]) ? match[1] : undefined;
}

/** What never changes about a token once minted, with when this isolate last saw `last_used_at` written. */
interface KnownToken {
  id: string;
  projectId: string;
  createdBy: string;
  scope: string;
  expiresAt: number;
  lastUsedAt: number | null;
}

/** Tokens this isolate has read and found live, by secret hash: used only on guarded writes (guarded-writes.ts). */
const MAX_KNOWN_TOKENS = 4096;
const knownTokens = new Map<string, KnownToken>();

/** Forgets a kept token (its guarded write found it dead). */
export const forgetToken = (tokenHash: string) => knownTokens.delete(tokenHash);

/** The token read from D1: live, and its creator an owner of its project right now, or 401. */
async function readToken(c: Context<FleetEnv>, tokenHash: string, now: number): Promise<KnownToken> {
  // One read: the token, and whether its creator is an owner of the token's project right now. In its project's
  // shard when this isolate has seen the token before, else on every shard at once (registry/shards.ts).
  const read = (db: Db) =>
    db
      .select({ token: apiTokens, creatorRole: members.role, projectId: apiTokens.projectId })
      .from(apiTokens)
      .leftJoin(members, and(eq(members.projectId, apiTokens.projectId), eq(members.address, apiTokens.createdBy)))
      .where(eq(apiTokens.tokenHash, tokenHash))
      .get();
  const seen = knownTokens.get(tokenHash);
  const shard = seen ? knownShard(c.env, seen.projectId) : undefined;
  let row = shard ? await read(orm(shard.db)) : undefined;
  // Not where it was (a project moved), or never seen: every shard. With one shard, it was read already.
  if (!row && !(shard && shardsOf(c.env).length === 1)) row = (await findOnShards(c.env, read))?.row;
  if (!row || row.token.revokedAt !== null || row.token.expiresAt <= now) {
    knownTokens.delete(tokenHash);
    throw new AppError("unauthenticated", { detail: "API token unknown, revoked or expired" });
  }
  if (row.creatorRole !== "owner") {
    knownTokens.delete(tokenHash);
    throw new AppError("unauthenticated", { detail: "the token's creator is no longer an owner of the project" });
  }
  const { id, projectId, createdBy, scope, expiresAt, lastUsedAt } = row.token;
  const known = { id, projectId, createdBy, scope, expiresAt, lastUsedAt };
  if (knownTokens.size >= MAX_KNOWN_TOKENS) knownTokens.delete(knownTokens.keys().next().value as string);
  knownTokens.set(tokenHash, known);
  return known;
}

/**
 * `readToken` within the address's budget of refused tokens: refused 429 without a read once this isolate knows the
 * budget spent; each refusal spends one (the one that finds the budget empty answers 429 too). The limiter fails
 * open: when it is down, tokens are read as before.
 */
async function lookUpToken(c: Context<FleetEnv>, tokenHash: string, now: number): Promise<KnownToken> {
  const key = refusedTokenKey(c);
  refuseIfKnownEmpty(key, REFUSED_TOKEN_RULE);
  try {
    return await readToken(c, tokenHash, now);
  } catch (err) {
    if (err instanceof AppError && err.reason === "unauthenticated") {
      await takeNamed(c.env.RATE_LIMITER, key, REFUSED_TOKEN_RULE, false, backgroundOf(c));
    }
    throw err;
  }
}

/**
 * The bearer's caller. On a guarded write a token this isolate already knows is taken as is (`guessed`): the
 * write's batch re-checks it. Anywhere else it is read.
 */
async function tokenCaller(c: Context<FleetEnv>, secret: string, now: number): Promise<Caller> {
  const tokenHash = await sha256Hex(secret);
  const kept = isGuardedWrite(c.req.method, c.req.path) ? knownTokens.get(tokenHash) : undefined;
  const guessed = kept !== undefined && kept.expiresAt > now;
  const token = guessed ? kept : await lookUpToken(c, tokenHash, now);
  const shard = knownShard(c.env, token.projectId);
  if (shard && (token.lastUsedAt === null || now - token.lastUsedAt >= LAST_USED_RESOLUTION_MS)) {
    token.lastUsedAt = now;
    // Conditional, so concurrent requests of one token write it once per resolution window.
    const stale = or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, now - LAST_USED_RESOLUTION_MS));
    const write = orm(shard.db)
      .update(apiTokens)
      .set({ lastUsedAt: now })
      .where(and(eq(apiTokens.id, token.id), stale));
    c.executionCtx.waitUntil(write.run().then(noop, noop));
  }
  return tokenView(token, tokenHash, guessed);
}

function tokenView(token: KnownToken, tokenHash: string, guessed: boolean): Caller {
  return {
    kind: "token",
    tokenId: token.id,
    tokenHash,
    projectId: token.projectId,
    address: token.createdBy,
    scope: storedScope(token.scope),
    guessed,
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
    const cookie = c.req.header("cookie");
    // The session row lives in the auth host's database, read at its primary (the binding itself, no D1 session):
    // a logout there must reach this request at once (DECISIONS 9).
    const current = await resolveSession(orm(c.env.AUTH_DB), cookie, {
      keys: await sessionKeys(c.env, cookie, now),
      issuer: c.env.AUTH_ORIGIN,
      now,
      // last_seen_at, when due (once per row per few minutes), after the answer: the devices list (issue 46).
      touch: (write) => c.executionCtx.waitUntil(write),
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
