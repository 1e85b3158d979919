// The fleet registry: identifies the caller once, guards browser state changes (bearer calls exempt), runs each
// API request on a D1 session (anonymous reads may use replicas; a request with a credential starts at the primary:
// shared/db/read-replicas.ts), mounts each route group and the meta routes; errors rendered once.
import { OpenAPIHono } from "@hono/zod-openapi";
import { d1Sessions } from "../../../shared/db/read-replicas";
import { shardBindings } from "../../../shared/db/registry-shards";
import { limitBody } from "../../../shared/http/body-limit";
import { installErrorHandling } from "../../../shared/http/errors";
import { mountMetaRoutes } from "../../../shared/http/meta-routes";
import { requestLog } from "../../../shared/http/request-log";
import { sameOrigin } from "../../../shared/http/same-origin";
import { securityHeaders } from "../../../shared/http/security-headers";
import { hasBearer, identifyCaller } from "./caller";
import { hasCredential } from "./credential";
import type { FleetEnv } from "./env";
import { integrateAfterWrite } from "./log/after-write";
import { loggedCaller } from "./log-caller";
import { shedRegistrations } from "./overload/shed";
import { confirmRefusedAccess } from "./registry/intake";
import { activityRoutes } from "./routes/activity";
import { adminLogRoutes } from "./routes/admin-log";
import { agentRoutes } from "./routes/agent-envelopes";
import { auditRoutes } from "./routes/audit";
import { billingRoutes } from "./routes/billing";
import { billingWebhookRoutes } from "./routes/billing-webhooks";
import { checkoutRoutes } from "./routes/checkout";
import { cronRoutes } from "./routes/cron";
import { dashboardRoutes } from "./routes/dashboard";
import { envelopeReadRoutes } from "./routes/envelope-reads";
import { logRoutes } from "./routes/log";
import { logTileRoutes } from "./routes/log-tiles";
import { logVisibilityRoutes } from "./routes/log-visibility";
import { logWitnessRoutes } from "./routes/log-witnesses";
import { memberRoutes } from "./routes/members";
import { pledgeResolutionRoutes } from "./routes/pledge-resolutions";
import { pledgeRoutes } from "./routes/pledges";
import { projectOwnershipRoutes } from "./routes/project-ownership";
import { projectPledgeRoutes } from "./routes/project-pledges";
import { projectRoutes } from "./routes/projects";
import { publicRoutes } from "./routes/public";
import { publicLogRoutes } from "./routes/public-logs";
import { revocationRoutes } from "./routes/revocations";
import { tokenRoutes } from "./routes/tokens";
import { webhookDeliveryRoutes } from "./routes/webhook-deliveries";
import { webhookEndpointRoutes } from "./routes/webhook-endpoints";
import { webhookRecoveryRoutes } from "./routes/webhook-recovery";
import { webhookSecretRollRoutes } from "./routes/webhook-secret-roll";
import { webhookStatsRoutes } from "./routes/webhook-stats";
import { dispatchAfterWrite } from "./webhooks/after-write";

export const app = new OpenAPIHono<FleetEnv>();

app.use("*", requestLog<FleetEnv>({ worker: "fleet", caller: loggedCaller }));
app.use("*", securityHeaders());
app.use("/api/*", shedRegistrations);
app.use("*", limitBody());
app.use("/api/*", sameOrigin({ exempt: hasBearer }));
app.use(
  "/api/*",
  d1Sessions<FleetEnv>({
    credentialed: hasCredential,
    authenticated: (c) => c.get("caller") !== undefined,
    bindings: (env) => shardBindings(env),
  }),
);
app.use("/api/*", identifyCaller);
app.use("/api/*", confirmRefusedAccess);
app.use("/api/*", dispatchAfterWrite);
app.use("/api/*", integrateAfterWrite);
for (const group of [
  publicRoutes,
  projectRoutes,
  projectOwnershipRoutes,
  activityRoutes,
  memberRoutes,
  tokenRoutes,
  adminLogRoutes,
  auditRoutes,
  agentRoutes,
  revocationRoutes,
  pledgeRoutes,
  pledgeResolutionRoutes,
  projectPledgeRoutes,
  envelopeReadRoutes,
  logRoutes,
  logTileRoutes,
  logWitnessRoutes,
  logVisibilityRoutes,
  publicLogRoutes,
  webhookEndpointRoutes,
  webhookSecretRollRoutes,
  webhookRecoveryRoutes,
  webhookDeliveryRoutes,
  webhookStatsRoutes,
  billingRoutes,
  checkoutRoutes,
  billingWebhookRoutes,
  cronRoutes,
  dashboardRoutes,
]) {
  app.route("/", group);
}
mountMetaRoutes(app, {
  name: "fleet",
  title: "Fleet registry API",
  version: "0.1.0",
  description:
    "Every request runs on a D1 session (read replication). A request with a credential (the session cookie or a " +
    "bearer token) starts at the primary, so who you are and what you may do is always decided on the latest " +
    "state; so does any method but GET and HEAD. An answer to an authenticated request that read or wrote the " +
    "database carries its bookmark in the `x-d1-bookmark` header; anonymous answers carry none. Send it back on an " +
    "anonymous GET to read at least that new a state; anonymous reads without one may be served by any replica.",
});
installErrorHandling(app);
