// Auth worker entry: the fetch handler and the Durable Object classes it binds.
import { warmVerifier } from "../../../shared/bitcoin/warm-up";
import { app } from "./app";

export { RateLimiter } from "../../../shared/rate-limit/rate-limiter";

// The first BIP-322 verify's one-time costs, paid at the isolate's start (warm-up.ts).
warmVerifier();

export default { fetch: app.fetch } satisfies ExportedHandler<import("./env").AuthBindings>;
