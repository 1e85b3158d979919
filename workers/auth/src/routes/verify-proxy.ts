// base_url serves the verification API too (DECISIONS 22): these paths go to the verify worker unchanged, and the
// host's OpenAPI document lists them from the same definitions the verify worker serves (shared/verify-api).
import { forwardRequest } from "../../../../shared/http/forward";
import { routeGroup } from "../../../../shared/validate";
import { VERIFY_API_ROUTES } from "../../../../shared/verify-api/routes";
import type { AuthEnv } from "../env";

export const VERIFY_PATHS = VERIFY_API_ROUTES.map((route) => route.path);

export const verifyProxyRoutes = routeGroup<AuthEnv>();

for (const route of VERIFY_API_ROUTES) {
  // Described here, answered there: every method goes through, so the verify worker's own 405 and Allow stand.
  verifyProxyRoutes.openAPIRegistry.registerPath(route);
  verifyProxyRoutes.all(route.path, (c) => forwardRequest(c.env.VERIFY, c.req.raw));
}
