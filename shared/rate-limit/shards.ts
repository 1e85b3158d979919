// Which limiter object holds a bucket (rate-limiter.ts): one per (route bucket, shard), the shard from a hash of the
// bucket's key. Pure, so a module that names a limiter loads no Durable Object class.
import type { RateLimiter } from "./rate-limiter";

/** Objects per route bucket. Each serves ~1,000 calls/s on the platform; leases make a call per client, not per request. */
export const LIMITER_SHARDS = 64;

/** FNV-1a, 32 bits: spreads keys over the shards; not a security boundary (a client picks only its own key). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The object holding the bucket `key` ("<route bucket>|<who>"). */
export function limiterFor(ns: DurableObjectNamespace<RateLimiter>, key: string) {
  const bar = key.indexOf("|");
  const route = bar < 0 ? key : key.slice(0, bar);
  return ns.get(ns.idFromName(`${route}#${fnv1a(key) % LIMITER_SHARDS}`));
}
