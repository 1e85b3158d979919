// Who may read a project's log (issue 48 item 3; docs/log.md "Public logs"): its members and tokens, as ever, and
// anyone at all once its owner has made it public. A read resolves to the database to read and to how its answer may
// be cached. Only an anonymous read of a public log is answered `public`: a shared cache then holds bytes anyone may
// read, never a credentialed answer (which may carry the caller's D1 bookmark). Whether a log is public is read at
// the primary, as a member's access is (issue 26): a log made private is refused at once, and a public log's
// checkpoint and tiles come from one database, never from two replicas at different positions (which would show a
// monitor a checkpoint whose tiles are not served yet, or a smaller size after a larger one).
import { eq } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { type Db, orm } from "../../../../shared/db/client";
import { withPrimary } from "../../../../shared/db/read-replicas";
import { projects } from "../../../../shared/db/schema";
import { AppError } from "../../../../shared/errors";
import { setAnswerHeader } from "../../../../shared/http/answer-header";
import { PUBLIC_CORS_HEADERS } from "../../../../shared/http/public-cors";
import { noteProject } from "../../../../shared/http/request-log";
import { projectAccess } from "../access";
import type { FleetEnv } from "../env";
import { forgetProjectShard, projectShard, remembered } from "../registry/shards";

export interface LogRead {
  db: Db;
  /** Anyone may hold a copy of the answer: an anonymous read of a public log. */
  shared: boolean;
}

/** A year: a full tile or entry bundle never changes (C2SP tlog-tiles: "immutable, long-lived"). */
const IMMUTABLE_SECONDS = 31_536_000;

/**
 * A public checkpoint's lifetime in shared caches: tlog-tiles asks that a checkpoint not be cached "beyond a few
 * seconds". The integrator signs at most one a second, so a copy is at most two behind, while every anonymous reader
 * at one edge within those seconds costs one read of `log_state`.
 */
export const PUBLIC_CHECKPOINT_SECONDS = 2;

/**
 * A public partial tile's lifetime in shared caches. Its bytes never change (a width of a tile is a prefix of the
 * tile), but it is wanted only while a checkpoint of its size is the newest: readers of a later checkpoint ask for a
 * wider one, and the spec lets a log stop serving it once the full tile exists. A minute covers every reader of one
 * checkpoint without filling the edges with up to 255 widths of each tile for a year, and it bounds how long the
 * newest entries of a log made private again stay readable from an edge (full ones stay: docs/log.md).
 */
export const PUBLIC_PARTIAL_TILE_SECONDS = 60;

/** A tile's or an entry bundle's Cache-Control. A member's read stays `private`, partial ones included, as before. */
export function tileCacheControl(read: LogRead, full: boolean): string {
  if (!read.shared) return `private, max-age=${IMMUTABLE_SECONDS}, immutable`;
  return full ? `public, max-age=${IMMUTABLE_SECONDS}, immutable` : `public, max-age=${PUBLIC_PARTIAL_TILE_SECONDS}`;
}

/** The checkpoint's Cache-Control: a second for a member, a few seconds anywhere for an anonymous reader. */
export const checkpointCacheControl = (read: LogRead): string =>
  read.shared ? `public, max-age=${PUBLIC_CHECKPOINT_SECONDS}` : "private, max-age=1";

/** Contexts whose read found the log public: their answers, refusals included, carry CORS for any origin. */
const publicReads = new WeakSet<Context>();

/**
 * The database a read of the project's log is answered from: a member's or a token's access as for the rest of the
 * log (the token bucket spent unless `spend: false`), else the log itself when it is public. An anonymous read of a
 * private log, or of no log at all, is 401 `unauthenticated`, as before: it says nothing of whether the project
 * exists. A caller who is no member of a private log's project keeps its 404 `not_found`.
 */
export async function logRead(
  c: Context<FleetEnv>,
  projectId: string,
  options: { spend?: boolean } = {},
): Promise<LogRead> {
  if (!c.get("caller")) {
    const db = await publicLogDb(c, projectId);
    if (!db) throw new AppError("unauthenticated");
    return { db, shared: true };
  }
  try {
    const access = await projectAccess(c, projectId, options);
    if (access.project.logPublicAt !== null) publicReads.add(c);
    return { db: access.db, shared: false };
  } catch (err) {
    if (!(err instanceof AppError && err.reason === "not_found")) throw err;
    const db = await publicLogDb(c, projectId);
    if (!db) throw err;
    return { db, shared: false };
  }
}

/** The project's database at its primary when its log is public, else undefined (no such project included). */
async function publicLogDb(c: Context<FleetEnv>, projectId: string, again = true): Promise<Db | undefined> {
  const env = withPrimary(c.env);
  const fromMemory = remembered(env, projectId);
  const shard = await projectShard(env, projectId);
  if (!shard) return undefined;
  const db = orm(shard.db);
  const row = await db.select({ at: projects.logPublicAt }).from(projects).where(eq(projects.id, projectId)).get();
  // A remembered shard that no longer holds the project (moved): forget it and find the project again, once.
  if (!row && fromMemory && again) {
    forgetProjectShard(projectId);
    return publicLogDb(c, projectId, false);
  }
  if (row?.at === null || row?.at === undefined) return undefined;
  publicReads.add(c);
  noteProject(c, projectId);
  return db;
}

/**
 * The log reads' answer headers, around the route (its rate limit included): a public log's answers, its refusals
 * too, carry the public CORS headers (`Access-Control-Allow-Origin: *`, no credentials: shared/http/public-cors.ts),
 * so a page of any origin reads it; no refusal is cached (a tile not integrated yet is served a moment later).
 */
export const logReadHeaders: MiddlewareHandler<FleetEnv> = async (c, next) => {
  await next();
  if (publicReads.has(c)) for (const [name, value] of PUBLIC_CORS_HEADERS) setAnswerHeader(c, name, value);
  if (c.res.status >= 400) setAnswerHeader(c, "Cache-Control", "no-store");
};
