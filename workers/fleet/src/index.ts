// Fleet worker entry: the fetch handler, the cron reconciler and the Durable Object classes it binds.
import { warmVerifier } from "../../../shared/bitcoin/warm-up";
import { errorFields } from "../../../shared/http/request-line";
import { logEvent } from "../../../shared/http/request-log";
import { app } from "./app";
import { reconcile } from "./cron";
import type { FleetBindings } from "./env";

export { RateLimiter } from "../../../shared/rate-limit/rate-limiter";
export { LogIntegrator } from "./durable-objects/log-integrator";
export { WebhookDispatcher } from "./durable-objects/webhook-dispatcher";

// The first BIP-322 verify's one-time costs, paid at the isolate's start (warm-up.ts).
warmVerifier();

export default {
  fetch: app.fetch,
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(
      reconcile(env).then(
        (report) => logEvent("fleet", "reconciled", { ...report }),
        (err: unknown) => {
          logEvent("fleet", "reconcile_failed", errorFields(err), "error");
          throw err; // still a failed invocation in Workers Logs
        },
      ),
    );
  },
} satisfies ExportedHandler<FleetBindings>;
