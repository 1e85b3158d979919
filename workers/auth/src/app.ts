// The auth host: mounts each route group, the meta routes and the verify proxy; errors rendered once.
import { OpenAPIHono } from "@hono/zod-openapi";
import { limitBody } from "../../../shared/http/body-limit";
import { installErrorHandling } from "../../../shared/http/errors";
import { mountMetaRoutes } from "../../../shared/http/meta-routes";
import { requestLog } from "../../../shared/http/request-log";
import { securityHeaders } from "../../../shared/http/security-headers";
import type { AuthEnv } from "./env";
import { accountRoutes } from "./routes/account";
import { accountDeletionRoutes } from "./routes/account-deletion";
import { accountExportRoutes } from "./routes/account-export";
import { accountLogRoutes } from "./routes/account-log";
import { accountPageRoutes } from "./routes/account-page";
import { challengeRoutes } from "./routes/challenge";
import { connectRoutes } from "./routes/connect";
import { deviceRoutes } from "./routes/devices";
import { emailOtpRoutes } from "./routes/email-otp";
import { familyRoutes } from "./routes/family";
import { identityRoutes } from "./routes/identities";
import { identityEmailRoutes } from "./routes/identity-email";
import { jwksRoutes } from "./routes/jwks";
import { logoutRoutes } from "./routes/logout";
import { mailSettingsRoutes } from "./routes/mail-settings";
import { meRoutes } from "./routes/me";
import { mergeRoutes } from "./routes/merge";
import { oauthRoutes } from "./routes/oauth";
import { oauthCallbackRoutes } from "./routes/oauth-callback";
import { oidcAuthorizeRoutes } from "./routes/oidc-authorize";
import { oidcClientRoutes } from "./routes/oidc-clients";
import { oidcDiscoveryRoutes } from "./routes/oidc-discovery";
import { oidcTokenRoutes } from "./routes/oidc-token";
import { reauthRoutes } from "./routes/reauth";
import { reauthEmailRoutes } from "./routes/reauth-email";
import { recoveryRoutes } from "./routes/recovery";
import { recoverySignInRoutes } from "./routes/recovery-signin";
import { rosterSignoutRoutes } from "./routes/roster-signout";
import { signinRoutes } from "./routes/signin";
import { signinPageRoutes } from "./routes/signin-page";
import { switchRoutes } from "./routes/switch";
import { verifyProxyRoutes } from "./routes/verify-proxy";
import { webauthnAssertRoutes } from "./routes/webauthn-assert";
import { webauthnKeyRoutes } from "./routes/webauthn-keys";
import { webauthnRegisterRoutes } from "./routes/webauthn-register";

export const app = new OpenAPIHono<AuthEnv>();

app.use("*", requestLog({ worker: "auth" }));
app.use("*", securityHeaders());
app.use("*", limitBody());
app.route("/", verifyProxyRoutes);
app.route("/", signinPageRoutes);
app.route("/", accountPageRoutes);
for (const group of [
  jwksRoutes,
  challengeRoutes,
  signinRoutes,
  meRoutes,
  switchRoutes,
  logoutRoutes,
  accountRoutes,
  identityRoutes,
  reauthRoutes,
  mergeRoutes,
  accountLogRoutes,
  accountDeletionRoutes,
  accountExportRoutes,
  rosterSignoutRoutes,
  deviceRoutes,
  mailSettingsRoutes,
  emailOtpRoutes,
  identityEmailRoutes,
  reauthEmailRoutes,
  recoveryRoutes,
  recoverySignInRoutes,
  connectRoutes,
  familyRoutes,
  oauthRoutes,
  oauthCallbackRoutes,
  webauthnRegisterRoutes,
  webauthnKeyRoutes,
  webauthnAssertRoutes,
  oidcDiscoveryRoutes,
  oidcAuthorizeRoutes,
  oidcTokenRoutes,
  oidcClientRoutes,
]) {
  app.route("/", group);
}
mountMetaRoutes(app, { name: "auth", title: "Auth host and verification API", version: "0.1.0" });
installErrorHandling(app);
