// The /api/check answer cache (60 s): an in-isolate LRU in front of the Cache API, with one freshness rule for both.
// Only answers computed from upstreams that answered are stored; a 502 from a failing chain or relay set never is,
// so a transient failure is never served as a negative. A hit in the isolate costs no round trip at all (the Cache
// API is itself a call out of the isolate).
import type { MiddlewareHandler } from "hono";

/** How long a check answer is served from cache (service-spec Limits). */
export const CHECK_CACHE_SECONDS = 60;
/** Answers an isolate keeps; the least recently used goes first. */
export const ISOLATE_CACHE_ENTRIES = 1_000;
/** The time an answer was stored, on the Cache API copy only (a hit carries X-Cache instead). */
export const CACHED_AT = "x-oc-cached-at";

export interface Kept {
  status: number;
  /** Never changed once kept: a Response copies it (a copy from a Headers object costs a third of one from pairs). */
  headers: Headers;
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

/** The isolate's fresh answer to a cache key, if it holds one (its use makes it the most recent). */
export function keptAnswer(key: string, now: number): Kept | undefined {
  const kept = isolateCache.get(key);
  if (!kept) return undefined;
  if (!isFresh(kept.cachedAt, now)) {
    isolateCache.delete(key);
    return undefined;
  }
  keep(key, kept);
  return kept;
}

/** A kept answer as a Response, with `extra` headers beside its own. */
export function keptResponse(kept: Kept, extra: readonly [string, string][] = []): Response {
  const response = new Response(kept.body, { status: kept.status, headers: kept.headers });
  for (const [name, value] of extra) response.headers.set(name, value);
  return response;
}

function fromIsolate(key: string, now: number): Response | undefined {
  const kept = keptAnswer(key, now);
  return kept && keptResponse(kept);
}

async function keepCopy(key: string, response: Response, cachedAt: number) {
  // Stored with the hit's own mark, so a hit sets no header of its own.
  const headers = new Headers([...response.headers].filter(([name]) => name !== CACHED_AT && name !== "x-cache"));
  headers.set("X-Cache", "HIT");
  keep(key, { status: response.status, headers, body: await response.arrayBuffer(), cachedAt });
}

/** One cache key per question: the path and its query parameters in a fixed order. */
export function checkCacheUrl(url: string): string {
  return cacheUrlOf(new URL(url).searchParams);
}

/** Request URLs of the last questions and their cache keys: the same question is asked by the same URL. */
const keyOfUrl = new Map<string, string>();

/**
 * The cache key of a request URL when it asks `/api/check`'s path, else undefined. A URL seen lately costs one
 * lookup: parsing it and sorting its query took more CPU than the rest of a cached answer.
 */
export function checkCacheUrlOf(url: string): string | undefined {
  const known = keyOfUrl.get(url);
  if (known !== undefined) return known;
  const parsed = new URL(url);
  if (parsed.pathname !== "/api/check") return undefined;
  const key = cacheUrlOf(parsed.searchParams);
  keyOfUrl.set(url, key);
  if (keyOfUrl.size > ISOLATE_CACHE_ENTRIES) {
    const oldest = keyOfUrl.keys().next().value;
    if (oldest !== undefined) keyOfUrl.delete(oldest);
  }
  return key;
}

function cacheUrlOf(searchParams: URLSearchParams): string {
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
