// The attestation verification API. Its routes (check, verify, discover) arrive with their own issue; for now it
// answers health, its reason table and its OpenAPI description.
import { OpenAPIHono } from "@hono/zod-openapi";
import { limitBody } from "../../../shared/http/body-limit";
import { installErrorHandling } from "../../../shared/http/errors";
import { mountMetaRoutes } from "../../../shared/http/meta-routes";
import type { VerifyEnv } from "./env";

export const app = new OpenAPIHono<VerifyEnv>();

app.use("*", limitBody());
mountMetaRoutes(app, { name: "verify", title: "Attestation verification API", version: "0.1.0" });
installErrorHandling(app);
