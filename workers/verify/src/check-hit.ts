// A cached /api/check answer served before the router: when the isolate holds a fresh answer to the question, the
// request takes its token from the check limit (the same bucket, lease and headers as the route's middleware) and
// the answer is made in one Response call, synchronously when the isolate also holds a leased token. Routing, the
// middleware chain and the header sets after it were a third of a hit's CPU (bench/README.md). Anything else, a
// refusal included, goes to the router, which answers it as before: a refused client's book already says so, so the
// router's 429 costs no second limiter call.
import { PUBLIC_CORS_HEADERS } from "../../../shared/http/public-cors";
import { ANSWER_SECURITY_HEADERS } from "../../../shared/http/security-headers";
import type { Admission } from "../../../shared/rate-limit/lease";
import { limitRequest, rateLimitPolicy, rateLimitValue, takeLeased } from "../../../shared/rate-limit/middleware";
import { READ_RULE } from "../../../shared/rate-limit/rules";
import { checkCacheUrlOf, type Kept, keptAnswer, keptResponse } from "./check-cache";
import type { VerifyBindings } from "./env";

/** The check route's limit, for its middleware and for this path alike. */
export const CHECK_LIMIT = { bucket: "check", rule: READ_RULE, failClosed: false } as const;

/**
 * The answer to a `GET /api/check` the isolate holds fresh: a Response when a leased token pays for it here (most
 * hits: no await, so the runtime gets the answer without a promise turn), a promise when a lease call must decide,
 * or undefined: the router answers (a miss, another route, or a refusal).
 */
export function answerKeptCheck(
  request: Request,
  env: VerifyBindings,
): Response | Promise<Response | undefined> | undefined {
  if (request.method !== "GET") return undefined;
  const key = checkCacheUrlOf(request.url);
  // Taken before the limiter is asked: a hit is an answer as of the request's arrival, as on the router's path.
  const kept = key === undefined ? undefined : keptAnswer(key, Date.now());
  if (!kept) return undefined;
  const leased = takeLeased(CHECK_LIMIT, request);
  if (leased) return answer(kept, leased);
  return limitRequest(env.RATE_LIMITER, CHECK_LIMIT, request).then(
    (admission) => answer(kept, admission),
    () => undefined, // refused: the router renders the 429 from the same book
  );
}

/**
 * What every hit adds to the kept answer's own headers, as the router's middleware would: the security headers and
 * the public CORS headers (a copy kept from the Cache API may predate them).
 */
const HIT_HEADERS: readonly [string, string][] = [...ANSWER_SECURITY_HEADERS, ...PUBLIC_CORS_HEADERS];

/**
 * A kept answer's headers with HIT_HEADERS and RateLimit-Policy added, made once per answer: a hit then
 * sets one header, RateLimit (7.7 µs a Response in workerd, against 10.8 µs for four sets after the copy).
 */
const answerHeaders = new WeakMap<Kept, Headers>();

function headersOf(kept: Kept): Headers {
  let headers = answerHeaders.get(kept);
  if (!headers) {
    headers = new Headers(kept.headers);
    for (const [name, value] of HIT_HEADERS) headers.set(name, value);
    headers.set("RateLimit-Policy", rateLimitPolicy(CHECK_LIMIT.rule));
    answerHeaders.set(kept, headers);
  }
  return headers;
}

/** The kept answer with HIT_HEADERS and, unless the limiter failed open, the RateLimit headers. */
function answer(kept: Kept, admission: Admission | undefined): Response {
  if (!admission) return keptResponse(kept, HIT_HEADERS);
  const response = new Response(kept.body, { status: kept.status, headers: headersOf(kept) });
  response.headers.set("RateLimit", rateLimitValue(CHECK_LIMIT.rule, admission));
  return response;
}
