// Verify worker entry: the fetch handler and the Durable Object classes it binds. A question the isolate holds a
// fresh answer to is answered before the router (check-hit.ts); everything else goes to the app.
import { warmVerifier } from "../../../shared/bitcoin/warm-up";
import { logAnswer } from "../../../shared/http/request-log";
import { checkRoute } from "../../../shared/verify-api/routes";
import { app } from "./app";
import { answerKeptCheck } from "./check-hit";
import type { VerifyBindings } from "./env";

export { RateLimiter } from "../../../shared/rate-limit/rate-limiter";

// The first BIP-322 verify's one-time costs, paid at the isolate's start (warm-up.ts).
warmVerifier();

export default {
  fetch(request, env, ctx) {
    const startedAt = Date.now();
    const hit = answerKeptCheck(request, env);
    // A hit never reaches the router's request log: it gets the same line and x-request-id here.
    const logged = (answer: Response) =>
      logAnswer(request, answer, { worker: "verify", route: checkRoute.path, startedAt });
    if (hit instanceof Response) return logged(hit);
    if (!hit) return app.fetch(request, env, ctx);
    return hit.then((answer) => (answer ? logged(answer) : app.fetch(request, env, ctx)));
  },
} satisfies ExportedHandler<VerifyBindings>;
