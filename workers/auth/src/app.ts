// The auth host: mounts each route group, the meta routes and the verify proxy; errors rendered once.
import { OpenAPIHono } from "@hono/zod-openapi";
import { limitBody } from "../../../shared/http/body-limit";
import { installErrorHandling } from "../../../shared/http/errors";
import { mountMetaRoutes } from "../../../shared/http/meta-routes";
import { securityHeaders } from "../../../shared/http/security-headers";
import type { AuthEnv } from "./env";
import { accountRoutes } from "./routes/account";
import { challengeRoutes } from "./routes/challenge";
import { connectRoutes } from "./routes/connect";
import { emailOtpRoutes } from "./routes/email-otp";
import { familyRoutes } from "./routes/family";
import { jwksRoutes } from "./routes/jwks";
import { logoutRoutes } from "./routes/logout";
import { meRoutes } from "./routes/me";
import { oauthRoutes } from "./routes/oauth";
import { oauthCallbackRoutes } from "./routes/oauth-callback";
import { signinRoutes } from "./routes/signin";
import { signinPageRoutes } from "./routes/signin-page";
import { switchRoutes } from "./routes/switch";
import { verifyProxyRoutes } from "./routes/verify-proxy";

export const app = new OpenAPIHono<AuthEnv>();

app.use("*", securityHeaders());
app.use("*", limitBody());
app.route("/", verifyProxyRoutes);
app.route("/", signinPageRoutes);
for (const group of [
  jwksRoutes,
  challengeRoutes,
  signinRoutes,
  meRoutes,
  switchRoutes,
  logoutRoutes,
  accountRoutes,
  emailOtpRoutes,
  connectRoutes,
  familyRoutes,
  oauthRoutes,
  oauthCallbackRoutes,
]) {
  app.route("/", group);
}
mountMetaRoutes(app, { name: "auth", title: "Auth host and verification API", version: "0.1.0" });
installErrorHandling(app);
