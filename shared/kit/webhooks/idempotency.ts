// Idempotency-key dedupe for webhook receivers: deliveries are at-least-once, and every retry of one event to one
// endpoint carries the same key. `has` before handling, `add` after handling succeeded (so a failed handler lets
// the retry through): handleWebhook and receiveWebhook do both. An in-memory LRU for one Node process, and an
// adapter for a Workers KV namespace.

export interface IdempotencyStore {
  has(key: string): boolean | Promise<boolean>;
  add(key: string): void | Promise<void>;
}

/** Keys older than this are forgotten: retries end after ~11 h; manual retries may come later, so keep days. */
export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 7 * 24 * 60 * 60;

/** One process's memory: least recently added keys are dropped past `maxEntries` or after `ttlSeconds`. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #keys = new Map<string, number>();
  constructor(
    readonly maxEntries = 10_000,
    readonly ttlSeconds = DEFAULT_IDEMPOTENCY_TTL_SECONDS,
    readonly now: () => number = Date.now,
  ) {}

  has(key: string): boolean {
    const at = this.#keys.get(key);
    if (at === undefined) return false;
    if (this.now() - at > this.ttlSeconds * 1000) {
      this.#keys.delete(key);
      return false;
    }
    return true;
  }

  add(key: string): void {
    this.#keys.delete(key);
    this.#keys.set(key, this.now());
    while (this.#keys.size > this.maxEntries) {
      const oldest = this.#keys.keys().next().value;
      if (oldest === undefined) break;
      this.#keys.delete(oldest);
    }
  }

  get size(): number {
    return this.#keys.size;
  }
}

/** The part of a Workers KV namespace used here. */
export interface KvLike {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
}

/**
 * A KV namespace as the store. KV is eventually consistent across locations (a retry landing elsewhere within
 * about a minute may not see the key), which is fine for retries spaced a minute or more apart; a handler that
 * must never run twice should also key its own writes on the idempotency key (a D1 UNIQUE column, a Durable Object).
 */
export function kvIdempotencyStore(
  kv: KvLike,
  options: { prefix?: string; ttlSeconds?: number } = {},
): IdempotencyStore {
  const prefix = options.prefix ?? "webhook-seen:";
  const ttl = Math.max(60, options.ttlSeconds ?? DEFAULT_IDEMPOTENCY_TTL_SECONDS);
  return {
    has: async (key) => (await kv.get(prefix + key)) !== null,
    add: (key) => kv.put(prefix + key, "1", { expirationTtl: ttl }),
  };
}
