// The one discovery URL of the fleet's public logs (issue 48 item 3): anyone, a witness or a monitor, finds every log
// its owner made public with what a tile client needs to follow it (origin, verifier key, checkpoint URL, tiles'
// prefix), in the order the logs became public, so a crawler holding its last cursor finds the new ones on the next
// page. It names no project and no owner: the owner published the log, not the project's name.
import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, isNotNull } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { projects } from "../../../../shared/db/schema";
import { setAnswerHeader } from "../../../../shared/http/answer-header";
import { errorResponses, json } from "../../../../shared/http/openapi";
import { PUBLIC_CORS_HEADERS } from "../../../../shared/http/public-cors";
import { isoMs } from "../../../../shared/time";
import { verifierKey } from "../../../../shared/tlog/note";
import { routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { logKey, logOrigin, projectNoteKey } from "../log/key";
import { afterCursor, DEFAULT_LIMIT, page } from "../pagination";
import { readEveryShard } from "../registry/shards";
import { ListQuery, listOf } from "../schemas";

export const publicLogRoutes = routeGroup<FleetEnv>();

/** How long anyone may cache the list: a log made public or private shows here within a minute. */
export const PUBLIC_LOGS_MAX_AGE_SECONDS = 60;

const PublicLog = z
  .object({
    project_id: z.string(),
    origin: z.string().openapi({ description: "The checkpoints' origin line (C2SP tlog-checkpoint)" }),
    verifier_key: z.string().openapi({ description: "The signed-note verifier key its checkpoints are signed by" }),
    checkpoint_url: z.string(),
    tiles_prefix: z.string().openapi({ description: "The C2SP tlog-tiles URL prefix: `<prefix>tile/0/000` …" }),
    public_since: z.string(),
  })
  .openapi("PublicLog");

/** The public CORS headers on every answer of the route, refusals included (shared/http/public-cors.ts). */
const anyOrigin: MiddlewareHandler<FleetEnv> = async (c, next) => {
  await next();
  for (const [name, value] of PUBLIC_CORS_HEADERS) setAnswerHeader(c, name, value);
};

publicLogRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/logs/public",
    summary: "The public logs: what a tile client needs to follow each, in the order they became public",
    description:
      `Anonymous, cached ${PUBLIC_LOGS_MAX_AGE_SECONDS} s. Any origin may read it from a browser ` +
      "(`Access-Control-Allow-Origin: *`, no credentials; errors included).",
    middleware: [anyOrigin, routeLimit("logs-public")],
    request: { query: ListQuery },
    responses: {
      200: json(listOf("logs", PublicLog), "A page of public logs"),
      ...errorResponses("invalid_query", "rate_limited", "signing_key_unset"),
    },
  }),
  async (c) => {
    const { limit = DEFAULT_LIMIT, cursor } = c.req.valid("query");
    // Every shard, one indexed read each (projects_log_public), merged in the one order the cursor follows.
    const rows = await readEveryShard(c.env, (db) =>
      db
        .select({ id: projects.id, createdAt: projects.logPublicAt })
        .from(projects)
        .where(and(isNotNull(projects.logPublicAt), afterCursor(cursor, projects.logPublicAt, projects.id)))
        .orderBy(asc(projects.logPublicAt), asc(projects.id))
        .limit(limit + 1),
    );
    const listed = rows.flatMap((row) => (row.createdAt === null ? [] : [{ id: row.id, createdAt: row.createdAt }]));
    listed.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const { items, next_cursor } = page(listed.slice(0, limit + 1), limit);
    const key = logKey(c.env, c.req.url);
    const fleet = new URL(c.env.FLEET_ORIGIN ?? c.req.url).origin;
    const logs = items.map(({ id, createdAt }) => ({
      project_id: id,
      origin: logOrigin(key, id),
      verifier_key: verifierKey(projectNoteKey(key, id)),
      checkpoint_url: `${fleet}/api/log/${id}/checkpoint`,
      tiles_prefix: `${fleet}/api/log/${id}/`,
      public_since: isoMs(createdAt),
    }));
    // A signed-in caller's answer may carry its D1 bookmark: only an anonymous one is for shared caches.
    const scope = c.get("caller") ? "private" : "public";
    c.header("Cache-Control", `${scope}, max-age=${PUBLIC_LOGS_MAX_AGE_SECONDS}`);
    return c.json({ ok: true as const, logs, next_cursor }, 200);
  },
);
