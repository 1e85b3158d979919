// Fleet worker entry: the fetch handler and the Durable Object classes it binds.
import { app } from "./app";

export { RateLimiter } from "../../../shared/rate-limit/rate-limiter";

export default { fetch: app.fetch } satisfies ExportedHandler<import("./env").FleetBindings>;
