// Sources that replace a product module in an experiment build (`buildVariant`): each takes one part of a hot path
// out, so what that part costs is the difference it makes. Never what a row's figure is measured on.

/**
 * `shared/rate-limit/middleware.ts` with no limit at all: every request passes, no lease, no object. A check hit
 * still answers synchronously with RateLimit headers (a constant admission), as the product's hits mostly do.
 */
export const NO_LIMITER = {
  "shared/rate-limit/middleware.ts": `
    import type { MiddlewareHandler } from "hono";
    export const rateLimit = (): MiddlewareHandler => async (_c, next) => { await next(); };
    export async function takeNamed() { return undefined; }
    export async function leaseTogether() {}
    export const backgroundOf = () => undefined;
    export const refuseIfKnownEmpty = () => undefined;
    export async function limitRequest() { return undefined; }
    export const takeLeased = () => ({ allowed: true, remaining: 59, retryAfterMs: 0, resetMs: 60_000 });
    export const rateLimitHeaders = () => [];
    export const rateLimitPolicy = () => "60;w=60";
    export const rateLimitValue = () => "limit=60, remaining=59, reset=60";
  `,
};

/** Every bucket durable, the read buckets too (as before they were kept in memory only): what the write costs. */
export const DURABLE_READS = {
  "shared/rate-limit/middleware.ts": (source) => {
    const call = "lease(key, rule, LEASE_WANT, giveBack, durable)";
    if (!source.includes(call)) throw new Error("the lease call is no longer what DURABLE_READS expects");
    return source.replace(call, "lease(key, rule, LEASE_WANT, giveBack, true)");
  },
};

/**
 * No signature check on a registration (the envelope is parsed, its id checked, and stored unverified): what the
 * BIP-322 verify costs the route under load, beside its cost alone in the BIP-322 rows.
 */
export const NO_SIGNATURE_CHECK = {
  "shared/envelopes/agent/signature.ts": (source) => {
    const head = "export function verifyEnvelopeSignatures(parsed: ParsedEnvelope): SignatureCheck {";
    if (!source.includes(head))
      throw new Error("verifyEnvelopeSignatures is no longer what NO_SIGNATURE_CHECK expects");
    return source.replace(head, `${head}\n  if (parsed) return { ok: true };`);
  },
};

/**
 * No D1 session (shared/db/read-replicas.ts passes every request through on the binding itself, which D1 serves from
 * the primary): what running each request on a session and answering with its bookmark costs a registration.
 */
export const NO_D1_SESSION = {
  "shared/db/read-replicas.ts": `
    import type { MiddlewareHandler } from "hono";
    export const d1Sessions = (): MiddlewareHandler => async (_c, next) => { await next(); };
    export const withPrimary = <B,>(env: B): B => env;
  `,
};

/**
 * No request line (shared/http/request-log.ts writes nothing per request): what the JSON line and its console.log
 * cost a request, which the registration profile puts first among the isolate's own functions.
 */
export const NO_REQUEST_LOG = {
  "shared/http/request-log.ts": (source) => {
    const head = "function writeRequestLine(facts: RequestFacts): void {";
    if (!source.includes(head)) throw new Error("writeRequestLine is no longer what NO_REQUEST_LOG expects");
    return source.replace(head, `${head}\n  if (facts) return;`);
  },
};
