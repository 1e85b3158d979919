// The loop behind bench/limiter-calls.mjs: `?op=id|stub|lease|same&n=` runs one limiter step `n` times.
import { READ_RULE } from "../../shared/rate-limit/rules";
import { limiterFor } from "../../shared/rate-limit/shards";

export { RateLimiter } from "../../shared/rate-limit/rate-limiter";

type Env = { RATE_LIMITER: DurableObjectNamespace<import("../../shared/rate-limit/rate-limiter").RateLimiter> };
let counter = 0;
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get("n") ?? "0");
    const op = url.searchParams.get("op");
    const ns = env.RATE_LIMITER;
    for (let i = 0; i < n; i++) {
      const key = `check|10.0.${counter % 250}.${(counter++ >> 8) % 250}`;
      if (op === "id") ns.idFromName(`check#${i % 64}`);
      else if (op === "stub") limiterFor(ns, key);
      else if (op === "lease") await limiterFor(ns, key).lease(key, READ_RULE, 64, 0, false);
      else if (op === "same") await limiterFor(ns, "check|same").lease("check|same", READ_RULE, 1, 1, false);
    }
    return Response.json({ n, ok: n });
  },
};
