// Verify worker entry: the fetch handler and the Durable Object classes it binds. A question the isolate holds a
// fresh answer to is answered before the router (check-hit.ts); everything else goes to the app.
import { warmVerifier } from "../../../shared/bitcoin/warm-up";
import { app } from "./app";
import { answerKeptCheck } from "./check-hit";
import type { VerifyBindings } from "./env";

export { RateLimiter } from "../../../shared/rate-limit/rate-limiter";

// The first BIP-322 verify's one-time costs, paid at the isolate's start (warm-up.ts).
warmVerifier();

export default {
  fetch(request, env, ctx) {
    const hit = answerKeptCheck(request, env);
    if (hit instanceof Response) return hit;
    if (!hit) return app.fetch(request, env, ctx);
    return hit.then((answer) => answer ?? app.fetch(request, env, ctx));
  },
} satisfies ExportedHandler<VerifyBindings>;
