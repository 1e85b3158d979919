// The attestation verification API: verify, check and discover, plus the meta routes; errors rendered once.
import { OpenAPIHono } from "@hono/zod-openapi";
import { limitBody } from "../../../shared/http/body-limit";
import { installErrorHandling } from "../../../shared/http/errors";
import { mountMetaRoutes } from "../../../shared/http/meta-routes";
import { publicCors } from "../../../shared/http/public-cors";
import { requestLog } from "../../../shared/http/request-log";
import { securityHeaders } from "../../../shared/http/security-headers";
import { VERIFY_API_ROUTES } from "../../../shared/verify-api/routes";
import type { VerifyEnv } from "./env";
import { checkRoutes } from "./routes/check";
import { discoverRoutes } from "./routes/discover";
import { verifyRoutes } from "./routes/verify";

export const app = new OpenAPIHono<VerifyEnv>();

app.use("*", requestLog({ worker: "verify" }));
app.use("*", securityHeaders());
// Public reads (issue 32): any origin, no credentials; before the body limit and the routes' rate limits.
app.use("*", publicCors(VERIFY_API_ROUTES));
app.use("*", limitBody());
for (const group of [verifyRoutes, checkRoutes, discoverRoutes]) app.route("/", group);
mountMetaRoutes(app, { name: "verify", title: "Attestation verification API", version: "0.1.0" });
installErrorHandling(app);
