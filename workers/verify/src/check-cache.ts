// The /api/check answer cache (60 s): an in-isolate LRU in front of the Cache API, with one freshness rule for both.
// Only answers computed from upstreams that answered are stored; a 502 from a failing chain or relay set never is,
// so a transient failure is never served as a negative. A hit in the isolate costs no round trip at all (the Cache
// API is itself a call out of the isolate).
import type { MiddlewareHandler } from "hono";

/** How long a check answer is served from cache (service-spec Limits). */
export const CHECK_CACHE_SECONDS = 60;
/** Answers an isolate keeps; the least recently used goes first. */
export const ISOLATE_CACHE_ENTRIES = 1_000;
const CACHED_AT = "x-oc-cached-at";

interface Kept {
  status: number;
  headers: [string, string][];
  body: ArrayBuffer;
  cachedAt: number;
}

/** The isolate's copies, by cache key; a Map keeps insertion order, so re-inserting on use makes it an LRU. */
const isolateCache = new Map<string, Kept>();

function keep(key: string, kept: Kept) {
  isolateCache.delete(key);
  isolateCache.set(key, kept);
  if (isolateCache.size > ISOLATE_CACHE_ENTRIES) {
    const oldest = isolateCache.keys().next().value;
    if (oldest !== undefined) isolateCache.delete(oldest);
  }
}

function fromIsolate(key: string, now: number): Response | undefined {
  const kept = isolateCache.get(key);
  if (!kept) return undefined;
  if (!isFresh(kept.cachedAt, now)) {
    isolateCache.delete(key);
    return undefined;
  }
  keep(key, kept);
  const response = new Response(kept.body, { status: kept.status, headers: kept.headers });
  response.headers.set("X-Cache", "HIT");
  return response;
}

async function keepCopy(key: string, response: Response, cachedAt: number) {
  const headers = [...response.headers].filter(([name]) => name !== CACHED_AT && name !== "x-cache");
  keep(key, { status: response.status, headers, body: await response.arrayBuffer(), cachedAt });
}

/** One cache key per question: the path and its query parameters in a fixed order. */
export function checkCacheUrl(url: string): string {
  const { searchParams } = new URL(url);
  searchParams.sort();
  return `https://check-cache.invalid/api/check?${searchParams}`;
}

/** The key as the Cache API takes it. */
export function checkCacheKey(url: string): Request {
  return new Request(checkCacheUrl(url));
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
  const url = checkCacheUrl(c.req.url);
  const kept = fromIsolate(url, now);
  if (kept) return kept;
  // Only a miss in the isolate pays for a Request object and the Cache API.
  const key = new Request(url);
  const cached = await readCachedCheck(key, now);
  if (cached) return cached;
  await next();
  if (c.res.status === 200 || c.res.status === 404) {
    c.res.headers.set("Cache-Control", `public, max-age=${CHECK_CACHE_SECONDS}`);
    await storeCheck(key, c.res, now);
  }
};

async function readCachedCheck(key: Request, now: number): Promise<Response | undefined> {
  const hit = await caches.default.match(key);
  if (!hit) return undefined;
  const cachedAt = Number(hit.headers.get(CACHED_AT));
  if (!isFresh(cachedAt, now)) return undefined;
  const response = new Response(hit.body, hit);
  response.headers.delete(CACHED_AT);
  await keepCopy(key.url, response.clone(), cachedAt);
  response.headers.set("X-Cache", "HIT");
  return response;
}

async function storeCheck(key: Request, response: Response, now: number): Promise<void> {
  const copy = new Response(response.clone().body, response);
  copy.headers.set(CACHED_AT, String(now));
  await Promise.all([caches.default.put(key, copy), keepCopy(key.url, response.clone(), now)]);
}
