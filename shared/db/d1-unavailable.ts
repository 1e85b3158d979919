// D1's own "not now" errors (Cloudflare's D1 docs, "Debug D1", the list of D1_ERRORs whose recommended action is
// to retry or to send fewer requests): the database's queue is full, or the Durable Object holding it is restarting
// or cannot be reached. They say nothing about the request, so they are answered 503 `overloaded` with Retry-After,
// never a 500. A failed statement or batch is rolled back whole (a batch is one transaction), so nothing is stored
// half-way; only a lost connection leaves unknown whether a write committed (docs/scale.md, "Overload").

import { AppError } from "../errors";

/** How long a client should wait before trying again, by what D1 said (seconds). */
export const D1_RETRY_AFTER_S = {
  /** The queue was full or too slow: it drains in about a second of fewer requests. */
  overloaded: 2,
  /** The database's object is restarting, or out of reach: a restart takes seconds. */
  restarting: 5,
} as const;

export type D1Unavailable = keyof typeof D1_RETRY_AFTER_S;

// The texts are D1's (matched as substrings: D1 prefixes them with `D1_ERROR: ` and may add a cause).
const MESSAGES: readonly [string, D1Unavailable][] = [
  ["D1 DB is overloaded", "overloaded"], // "Too many requests queued." / "Requests queued for too long."
  ["exceeded its memory limit and was reset", "restarting"],
  ["exceeded its CPU time limit and was reset", "restarting"],
  ["caused object to be reset", "restarting"], // storage error, start-up failure, storage timeout
  ["reset because its code was updated", "restarting"],
  ["Cannot resolve D1 DB due to transient issue on remote node", "restarting"],
  ["Network connection lost", "restarting"],
];

/** Which of D1's "not now" errors `err` is, if it is one: its message, or its causes' (drizzle wraps D1's error). */
export function d1Unavailable(err: unknown): D1Unavailable | undefined {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const text = e instanceof Error ? e.message : String(e);
    const kind = MESSAGES.find(([message]) => text.includes(message))?.[1];
    if (kind) return kind;
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}

/** The refusal for one of D1's "not now" errors: 503 `overloaded`, Retry-After by its kind. */
export function overloadedByD1(kind: D1Unavailable): AppError {
  return new AppError("overloaded", { headers: { "Retry-After": String(D1_RETRY_AFTER_S[kind]) } });
}
