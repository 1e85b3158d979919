// The /api/check answer cache (60 s, the Cache API). Only answers computed from upstreams that answered are
// stored; a 502 from a failing chain or relay set never is, so a transient failure is never served as a negative.
import type { MiddlewareHandler } from "hono";

/** How long a check answer is served from cache (service-spec Limits). */
export const CHECK_CACHE_SECONDS = 60;
const CACHED_AT = "x-oc-cached-at";

/** One cache key per question: the path and its query parameters in a fixed order. */
export function checkCacheKey(url: string): Request {
  const source = new URL(url);
  const params = [...source.searchParams.entries()].sort(([a], [b]) => a.localeCompare(b));
  const key = new URL("https://check-cache.invalid/api/check");
  for (const [name, value] of params) key.searchParams.append(name, value);
  return new Request(key.toString());
}

/** Fresh while younger than the TTL, by our own stamp (the platform may keep entries a little longer). */
export function isFresh(cachedAt: number, now: number, ttlSeconds = CHECK_CACHE_SECONDS): boolean {
  return now >= cachedAt && now - cachedAt < ttlSeconds * 1000;
}

/**
 * Serves a fresh cached answer, or lets the route answer and stores a 200 or 404 (a verdict computed from
 * upstreams that answered). Errors, 502s included, pass through unstored.
 */
export const checkCache: MiddlewareHandler = async (c, next) => {
  const now = Date.now();
  const key = checkCacheKey(c.req.url);
  const cached = await readCachedCheck(key, now);
  if (cached) return cached;
  await next();
  if (c.res.status === 200 || c.res.status === 404) {
    await storeCheck(key, c.res, now);
    c.res.headers.set("Cache-Control", `public, max-age=${CHECK_CACHE_SECONDS}`);
  }
};

async function readCachedCheck(key: Request, now: number): Promise<Response | undefined> {
  const hit = await caches.default.match(key);
  if (!hit) return undefined;
  if (!isFresh(Number(hit.headers.get(CACHED_AT)), now)) return undefined;
  const response = new Response(hit.body, hit);
  response.headers.delete(CACHED_AT);
  response.headers.set("X-Cache", "HIT");
  return response;
}

async function storeCheck(key: Request, response: Response, now: number): Promise<void> {
  const copy = new Response(response.clone().body, response);
  copy.headers.set(CACHED_AT, String(now));
  copy.headers.set("Cache-Control", `public, max-age=${CHECK_CACHE_SECONDS}`);
  await caches.default.put(key, copy);
}
