// Sources that replace a product module in an experiment build (`buildVariant`): each takes one part of a hot path
// out, so what that part costs is the difference it makes. Never what a row's figure is measured on.

/** `shared/rate-limit/middleware.ts` with no limit at all: every request passes, no lease, no object. */
export const NO_LIMITER = {
  "shared/rate-limit/middleware.ts": `
    import type { MiddlewareHandler } from "hono";
    export const rateLimit = (): MiddlewareHandler => async (_c, next) => { await next(); };
    export async function takeNamed() { return undefined; }
    export async function limitRequest() { return undefined; }
    export const rateLimitHeaders = () => [];
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

/** No webhook fan-out after a registration (the cron sweep would do it later): what the background pass costs. */
export const NO_AFTER_WRITE_DISPATCH = {
  "workers/fleet/src/webhooks/after-write.ts": `
    import type { MiddlewareHandler } from "hono";
    export const dispatchAfterWrite: MiddlewareHandler = async (_c, next) => { await next(); };
    export async function coalescedDispatch() {}
    export function notePendingEvent() {}
  `,
};
