// Each project's log as C2SP tlog-tiles (issue 29; docs/log.md "Tiles"), under the prefix /api/log/<project>/: the
// checkpoint, hash tiles `tile/<L>/<N>[.p/<W>]` and entry bundles `tile/entries/<N>[.p/<W>]` carrying the
// envelopes' stored bytes, so a standard tile client computes every proof itself. One tile row per request (an
// entry bundle also reads its leaves' bytes). Tiles are immutable (a given width of a tile never changes), so they
// are cached for a year; the checkpoint for a second. Project members and the project's tokens read them, as the
// rest of the log: hash tiles reveal only counts, but entries are the envelopes. A log its owner made public is read
// by anyone, anonymous reads answered `public` for the edge and with CORS (log/readers.ts; issue 48).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { utf8 } from "../../../../shared/crypto/digest";
import { AppError } from "../../../../shared/errors";
import { errorResponses } from "../../../../shared/http/openapi";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { encodeEntryBundle, HASH_SIZE, parseTilePath, TILE_WIDTH, tileKey } from "../../../../shared/tlog/tiles";
import { routeGroup } from "../../../../shared/validate";
import type { FleetEnv } from "../env";
import { routeLimit } from "../limits";
import { edgeCopy, keepAtEdge } from "../log/edge-cache";
import { checkpointCacheControl, logRead, logReadHeaders, tileCacheControl } from "../log/readers";
import { readTiles } from "../log/store";
import { leafEntries } from "../registry/log";
import { ProjectId } from "../schemas";
import { currentCheckpoint } from "./log";

export const logTileRoutes = routeGroup<FleetEnv>();

/**
 * Tiles per client IP: a monitor catching up reads two per 256 entries, each one primary-key read, so they have
 * their own bucket instead of the project's (600 a minute would hold a 100,000-leaf catch-up for two minutes).
 */
const tileLimit = rateLimit({
  bucket: "fleet-log-tiles",
  rule: { capacity: 2_400, windowMs: 60_000 },
  failClosed: false,
});

const OCTETS = "application/octet-stream";

function projectOf(c: Context<FleetEnv>): string {
  const parsed = ProjectId.safeParse(c.req.param("project_id"));
  if (!parsed.success) throw new AppError("invalid_id", { detail: "project_id: proj_ and 24 hex digits" });
  return parsed.data;
}

const ProjectParam = z.object({ project_id: ProjectId });

/** What the OpenAPI description says of who reads a log and how its answers are cached. */
const PUBLIC_LOG_NOTE =
  "Project members and the project's tokens read it (`private` caching). When its owner has made the log public " +
  "(PUT /api/projects/{id}/log-visibility), anyone does: an anonymous read is answered `public` (full tiles and " +
  "entry bundles `public, max-age=31536000, immutable`; partial ones for a minute, the checkpoint for 2 s) with " +
  "`Access-Control-Allow-Origin: *`. An anonymous read of a private log is 401 `unauthenticated`, whether the " +
  "project exists or not.";

logTileRoutes.openAPIRegistry.registerPath(
  createRoute({
    method: "get",
    path: "/api/log/{project_id}/checkpoint",
    summary: "The project's latest checkpoint at the C2SP tlog-tiles path (the same note as /api/log/checkpoint)",
    description: PUBLIC_LOG_NOTE,
    request: { params: ProjectParam },
    responses: {
      200: { description: "The signed note", content: { "text/plain; charset=utf-8": { schema: z.string() } } },
      ...errorResponses("invalid_id", "unauthenticated", "not_found", "signing_key_unset"),
    },
  }),
);
logTileRoutes.get("/api/log/:project_id/checkpoint", logReadHeaders, routeLimit("log-checkpoint"), async (c) => {
  const projectId = projectOf(c);
  const read = await logRead(c, projectId);
  const note = await currentCheckpoint(c, read, projectId);
  return c.body(note, 200, {
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": checkpointCacheControl(read),
  });
});

logTileRoutes.openAPIRegistry.registerPath(
  createRoute({
    method: "get",
    path: "/api/log/{project_id}/tile/{tile_path}",
    summary:
      "A hash tile (`tile_path` = `<L>/<N>[.p/<W>]`) or an entry bundle (`entries/<N>[.p/<W>]`) of the project's " +
      "log, C2SP tlog-tiles; `tile_path` spans several path segments (`0/x001/234.p/17`)",
    description: PUBLIC_LOG_NOTE,
    request: { params: ProjectParam.extend({ tile_path: z.string() }) },
    responses: {
      200: {
        description: "The tile's hashes, or the bundle's uint16-length-prefixed entries",
        content: { [OCTETS]: { schema: z.string().openapi({ format: "binary" }) } },
      },
      ...errorResponses("invalid_id", "unauthenticated", "not_found", "rate_limited"),
    },
  }),
);
logTileRoutes.get("/api/log/:project_id/tile/:tile_path{.+}", logReadHeaders, tileLimit, async (c) => {
  const projectId = projectOf(c);
  const tile = parseTilePath(`tile/${c.req.param("tile_path")}`);
  if (!tile) throw new AppError("not_found", { detail: "not a C2SP tlog-tiles path" });
  const read = await logRead(c, projectId, { spend: false });
  if (read.shared) {
    const copy = await edgeCopy(c);
    if (copy) return copy;
  }
  const level = tile.kind === "hash" ? tile.level : 0;
  // The level-0 tile says which leaves are integrated: an entry bundle is served only as far as its tile is.
  const content = (await readTiles(read.db, projectId, [{ level, index: tile.index, width: tile.width }])).get(
    tileKey(level, tile.index),
  );
  if (!content || content.length < tile.width * HASH_SIZE) {
    throw new AppError("not_found", { detail: "no such tile in the log's latest checkpoint" });
  }
  const headers = { "Content-Type": OCTETS, "Cache-Control": tileCacheControl(read, tile.width === TILE_WIDTH) };
  const answer = (res: Response) => (read.shared ? keepAtEdge(c, res) : res);
  if (tile.kind === "hash") {
    return answer(c.body(new Uint8Array(content.subarray(0, tile.width * HASH_SIZE)), 200, headers));
  }
  const entries = await leafEntries(read.db, projectId, tile.index * TILE_WIDTH, tile.width);
  // tlog-tiles: entry bundles SHOULD be compressed at the HTTP layer, gzip with no negotiation allowed. The runtime
  // compresses a body whose Content-Encoding it is told (JSON envelopes shrink about 3:1); clients decode it.
  const bundle = new Uint8Array(encodeEntryBundle(entries.map((body) => utf8(body))));
  return answer(c.body(bundle, 200, { ...headers, "Content-Encoding": "gzip" }));
});
