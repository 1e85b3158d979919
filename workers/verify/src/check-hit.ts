// A cached /api/check answer served before the router: when the isolate holds a fresh answer to the question, the
// request takes its token from the check limit (the same bucket, lease and headers as the route's middleware) and
// the answer is made in one Response call. Routing, the middleware chain and the header sets after it were a third
// of a hit's CPU (bench/README.md). Anything else, a refusal included, goes to the router, which answers it as
// before: a refused client's book already says so, so the router's 429 costs no second limiter call.
import { ANSWER_SECURITY_HEADERS } from "../../../shared/http/security-headers";
import { limitRequest, rateLimitHeaders } from "../../../shared/rate-limit/middleware";
import { READ_RULE } from "../../../shared/rate-limit/rules";
import { checkCacheUrlOf, keptAnswer, keptResponse } from "./check-cache";
import type { VerifyBindings } from "./env";

/** The check route's limit, for its middleware and for this path alike. */
export const CHECK_LIMIT = { bucket: "check", rule: READ_RULE, failClosed: false } as const;

/** The answer to a `GET /api/check` the isolate holds fresh, or undefined: the router answers. */
export async function answerKeptCheck(request: Request, env: VerifyBindings): Promise<Response | undefined> {
  if (request.method !== "GET") return undefined;
  const key = checkCacheUrlOf(request.url);
  // Taken before the limiter is asked: a hit is an answer as of the request's arrival, as on the router's path.
  const kept = key === undefined ? undefined : keptAnswer(key, Date.now());
  if (!kept) return undefined;
  let admission: Awaited<ReturnType<typeof limitRequest>>;
  try {
    admission = await limitRequest(env.RATE_LIMITER, CHECK_LIMIT, request);
  } catch {
    return undefined; // refused: the router renders the 429 from the same book
  }
  const limit = admission ? rateLimitHeaders(CHECK_LIMIT.rule, admission) : [];
  return keptResponse(kept, [...ANSWER_SECURITY_HEADERS, ...limit]);
}
