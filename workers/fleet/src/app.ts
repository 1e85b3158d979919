// The fleet registry. Its routes arrive with their own issue; for now it answers health, its reason table and
// its OpenAPI description.
import { OpenAPIHono } from "@hono/zod-openapi";
import { limitBody } from "../../../shared/http/body-limit";
import { installErrorHandling } from "../../../shared/http/errors";
import { mountMetaRoutes } from "../../../shared/http/meta-routes";
import type { FleetEnv } from "./env";

export const app = new OpenAPIHono<FleetEnv>();

app.use("*", limitBody());
mountMetaRoutes(app, { name: "fleet", title: "Fleet registry API", version: "0.1.0" });
installErrorHandling(app);
