// base_url serves the verification API too (DECISIONS 22): these paths go to the verify worker unchanged.
import { Hono } from "hono";
import type { AuthEnv } from "../env";

export const VERIFY_PATHS = ["/api/check", "/api/verify", "/api/discover"] as const;

export const verifyProxyRoutes = new Hono<AuthEnv>();

for (const path of VERIFY_PATHS) {
  verifyProxyRoutes.all(path, (c) => c.env.VERIFY.fetch(c.req.raw));
}
