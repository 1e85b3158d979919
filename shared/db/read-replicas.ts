// D1 read replication through the Sessions API (issue 19, docs/scale.md). Every request of a worker that mounts
// `d1Sessions` runs on one D1 session:
// - a read (GET, HEAD) may be answered by a replica at least as new as the bookmark the caller sends in
//   `x-d1-bookmark`, or by any replica when it sends none;
// - anything else starts at the primary, so the conditions a write is checked against are the latest state.
// Every answer to a request that touched the database carries the session's latest bookmark in `x-d1-bookmark`
// (a session that ran no query has none): a caller that sends it back with its next read sees its own writes,
// whichever replica answers.
import type { MiddlewareHandler } from "hono";
import { setAnswerHeader } from "../http/answer-header";

/** The header Cloudflare's own examples carry a D1 bookmark in. */
export const BOOKMARK_HEADER = "x-d1-bookmark";

/** D1's bookmark shape: three 8-digit and one 32-digit lowercase hex groups (e.g. `0000007b-0000b26e-…`). */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** The caller's bookmark when it has D1's shape; anything else is ignored, as if none was sent. */
export function bookmarkFrom(value: string | undefined): string | undefined {
  return value !== undefined && BOOKMARK.test(value) ? value : undefined;
}

/** Where a request's session starts: the caller's bookmark or any replica for reads, the primary for the rest. */
export function sessionStart(method: string, bookmark: string | undefined): string {
  if (method !== "GET" && method !== "HEAD") return "first-primary";
  return bookmark ?? "first-unconstrained";
}

type SessionEnv = { Bindings: { DB?: D1Database } };

export function d1Sessions(): MiddlewareHandler<SessionEnv> {
  return async (c, next) => {
    // No bindings (a document-only request through app.request) or no database: the routes answer as before
    // (503 database_not_configured where they touch it).
    const db = c.env?.DB;
    if (typeof db?.withSession !== "function") return next();
    const session = db.withSession(sessionStart(c.req.method, bookmarkFrom(c.req.header(BOOKMARK_HEADER))));
    // This request's bindings only: the env object itself is the isolate's, shared by concurrent requests.
    c.env = { ...c.env, DB: session as unknown as D1Database };
    await next();
    const bookmark = session.getBookmark();
    if (bookmark) setAnswerHeader(c, BOOKMARK_HEADER, bookmark);
  };
}
