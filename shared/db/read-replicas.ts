// D1 read replication through the Sessions API (issue 19, docs/scale.md). Every request of a worker that mounts
// `d1Sessions` runs on one D1 session:
// - a request that carries a credential (a cookie or a bearer token) starts at the primary, whatever its method:
//   who the caller is and what it may do (a token revoked, a session logged out, a member removed or demoted a
//   moment ago) is decided on the latest state, never on a replica that has not seen it yet (issue 26). Its later
//   queries may be served by replicas, but only ones at least as new as that first read (the session's guarantee);
//   the signed artifacts (the audit export, log checkpoints and proofs) are member reads, so they are read there too;
// - any other request that is not a read (GET, HEAD) also starts at the primary, so a write's conditions are checked
//   against the latest state;
// - an anonymous read (the public pledge reads, health) may be answered by a replica at least as new as the
//   bookmark it sends in `x-d1-bookmark`, or by any replica when it sends none.
// The answer to an authenticated caller whose request touched the database carries the session's latest bookmark in
// `x-d1-bookmark` (a session that ran no query has none): sent back with a later read, it reads its own writes,
// whichever replica answers. Anonymous answers carry none: the bookmark is the database's write position, which
// says how busy the whole service is, and nobody needs it to read a public record.
import type { Context, MiddlewareHandler } from "hono";
import { setAnswerHeader } from "../http/answer-header";

/** The header Cloudflare's own examples carry a D1 bookmark in. */
export const BOOKMARK_HEADER = "x-d1-bookmark";

/** D1's bookmark shape: three 8-digit and one 32-digit lowercase hex groups (e.g. `0000007b-0000b26e-…`). */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** The caller's bookmark when it has D1's shape; anything else is ignored, as if none was sent. */
export function bookmarkFrom(value: string | undefined): string | undefined {
  return value !== undefined && BOOKMARK.test(value) ? value : undefined;
}

/**
 * Where a request's session starts: the primary for a request with a credential and for anything but a read; the
 * caller's bookmark or any replica for an anonymous read.
 */
export function sessionStart(method: string, bookmark: string | undefined, credentialed: boolean): string {
  if (credentialed || (method !== "GET" && method !== "HEAD")) return "first-primary";
  return bookmark ?? "first-unconstrained";
}

/**
 * With several registry shards (registry-shards.ts) each database has its own positions: the header then carries
 * one `<shard index>.<bookmark>` per shard the request touched, comma-separated, and a bookmark sent back applies to
 * its own shard only. With one shard the header is the bare bookmark, as D1 writes it.
 */
export function bookmarksFrom(value: string | undefined, shards: number): (string | undefined)[] {
  const out: (string | undefined)[] = Array.from({ length: shards }, () => undefined);
  if (value === undefined) return out;
  if (shards === 1) {
    out[0] = bookmarkFrom(value);
    return out;
  }
  for (const item of value.split(",").slice(0, shards)) {
    // A bare bookmark is the first shard's: the database every project was in before there were shards.
    const match = /^(?:(\d{1,3})\.)?(.+)$/.exec(item.trim());
    const index = Number(match?.[1] ?? 0);
    if (index < shards) out[index] = bookmarkFrom(match?.[2]);
  }
  return out;
}

/** The answer's header value from each shard's latest bookmark (undefined: no query ran on it). */
export function bookmarkHeader(bookmarks: readonly (string | null | undefined)[]): string | undefined {
  if (bookmarks.length === 1) return bookmarks[0] ?? undefined;
  const items = bookmarks.flatMap((b, index) => (b ? [`${index}.${b}`] : []));
  return items.length > 0 ? items.join(",") : undefined;
}

type SessionEnv = { Bindings: object };

export interface SessionOptions<E extends SessionEnv> {
  /** Whether the request carries a credential (cookie or bearer): it then starts at the primary. */
  credentialed: (c: Context<E>) => boolean;
  /** Whether the answer may carry the bookmark: true for an authenticated caller only (read after `next`). */
  authenticated: (c: Context<E>) => boolean;
  /** The database bindings a request runs a session on, in shard order (default: `DB` alone). */
  bindings?: (env: E["Bindings"]) => string[];
}

/** The database bindings themselves, outside any session, by the per-request env `d1Sessions` made. */
const unsessioned = new WeakMap<object, Record<string, D1Database>>();

/**
 * The request's env with its database bindings outside the request's session: work that outlives the request (a
 * dispatch in `waitUntil`) and must see writes made after it began runs at the primary (issue 26).
 */
export function withPrimary<B extends object>(env: B): B {
  const dbs = unsessioned.get(env);
  return dbs ? { ...env, ...dbs } : env;
}

const hasSessions = (db: unknown): db is D1Database =>
  typeof (db as D1Database | undefined)?.withSession === "function";

export function d1Sessions<E extends SessionEnv>(options: SessionOptions<E>): MiddlewareHandler<E> {
  return async (c, next) => {
    // No bindings (a document-only request through app.request) or no database: the routes answer as before
    // (503 database_not_configured where they touch it).
    const env = c.env as Record<string, unknown> | undefined;
    const names = env ? (options.bindings?.(c.env) ?? ["DB"]) : [];
    const dbs = names.map((name) => env?.[name]);
    if (!dbs.some(hasSessions)) return next();
    const credentialed = options.credentialed(c);
    const sent = bookmarksFrom(c.req.header(BOOKMARK_HEADER), names.length);
    const sessions = dbs.map((db, i) =>
      hasSessions(db) ? db.withSession(sessionStart(c.req.method, sent[i], credentialed)) : undefined,
    );
    // This request's bindings only: the env object itself is the isolate's, shared by concurrent requests.
    const wrapped: Record<string, unknown> = {};
    const originals: Record<string, D1Database> = {};
    names.forEach((name, i) => {
      const db = dbs[i];
      if (!hasSessions(db)) return;
      wrapped[name] = sessions[i];
      originals[name] = db;
    });
    c.env = { ...c.env, ...wrapped };
    unsessioned.set(c.env, originals);
    await next();
    const header = bookmarkHeader(sessions.map((session) => session?.getBookmark()));
    if (header && options.authenticated(c)) setAnswerHeader(c, BOOKMARK_HEADER, header);
  };
}
