// A public log's tiles and entry bundles kept in the data center's cache (issue 48 item 3; docs/log.md "Public
// logs"): an anonymous read of a public log, once the log's visibility has been checked at the primary, is answered
// from the Workers Cache API (`caches.default`) when this data center already holds the piece, so the tile's and the
// leaves' rows are read once per data center and lifetime (a year for a full piece, a minute for a partial one: the
// answer's own Cache-Control, which the Cache API honours). The check comes first, always: a log made private is
// refused at once, whatever the cache holds. Members' and tokens' reads never use it (their answers are `private`).
import type { Context } from "hono";
import type { FleetEnv } from "../env";

/** The runtime's default cache, where there is one (workerd has it; a runtime without the Cache API has none). */
function edgeCache(): Cache | undefined {
  return (globalThis as { caches?: { default?: Cache } }).caches?.default;
}

/** The piece's key: its URL without the query (the tile path says everything; a query must not split the copies). */
function pieceKey(c: Context<FleetEnv>): Request {
  const url = new URL(c.req.url);
  return new Request(`${url.origin}${url.pathname}`, { method: "GET" });
}

/** This data center's copy of the piece the request names, if it holds one. */
export async function edgeCopy(c: Context<FleetEnv>): Promise<Response | undefined> {
  const hit = await edgeCache()?.match(pieceKey(c));
  if (!hit) return undefined;
  // A copy with headers of its own (the answer's middleware adds CORS to it). The cache keeps an entry bundle as it
  // went out, gzip-compressed: its bytes are sent as they are, not compressed a second time.
  const encoded = hit.headers.has("content-encoding");
  return new Response(hit.body, {
    status: hit.status,
    headers: hit.headers,
    encodeBody: encoded ? "manual" : "automatic",
  });
}

/** Keeps a 200 answer for the next anonymous reader in this data center, after the answer (never delays it). */
export function keepAtEdge(c: Context<FleetEnv>, res: Response): Response {
  const cache = edgeCache();
  if (cache && res.status === 200) c.executionCtx.waitUntil(cache.put(pieceKey(c), res.clone()).catch(() => {}));
  return res;
}
