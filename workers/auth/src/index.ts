// Auth worker entry: the fetch handler, the cron's erasure of accounts whose deletion is due, and the Durable
// Object classes it binds.
import { warmVerifier } from "../../../shared/bitcoin/warm-up";
import { errorFields } from "../../../shared/http/request-line";
import { logEvent } from "../../../shared/http/request-log";
import { app } from "./app";
import type { AuthBindings } from "./env";
import { eraseDueAccounts } from "./erase-account";

export { RateLimiter } from "../../../shared/rate-limit/rate-limiter";

// The first BIP-322 verify's one-time costs, paid at the isolate's start (warm-up.ts).
warmVerifier();

export default {
  fetch: app.fetch,
  scheduled(controller, env, ctx) {
    ctx.waitUntil(
      eraseDueAccounts(env, controller.scheduledTime).then(
        (counts) => logEvent("auth", "accounts_erased", { ...counts }),
        (err: unknown) => {
          logEvent("auth", "account_erasure_failed", errorFields(err), "error");
          throw err; // still a failed invocation in Workers Logs
        },
      ),
    );
  },
} satisfies ExportedHandler<AuthBindings>;
