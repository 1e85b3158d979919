// GET /signin: the sign-in page. Its script only calls this host's JSON API, which applies every rule itself. The
// page returns to `return_to` after sign-in only when the return-to policy allows it (the server decides and puts
// the checked value in the page); anything else is dropped, so the page is no open redirect and no `javascript:`.
import { createRoute, z } from "@hono/zod-openapi";
import { returnToPolicy, safeReturnTo } from "../../../../shared/auth/oauth/return-to";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { signinPage } from "../pages/signin-page";

export const signinPageRoutes = routeGroup<AuthEnv>();

/** Not strict: a page link may carry other parameters (analytics, the provider's), which the page ignores. */
const SigninPageQuery = z.object({
  return_to: z.string().optional().openapi({ description: "Where to go after sign-in, if the policy allows it" }),
  add: z.string().optional().openapi({ description: "1: add an account to this browser's roster" }),
});

const signinPageRoute = createRoute({
  method: "get",
  path: "/signin",
  summary: "The sign-in page (Bitcoin signature, email code, providers, the roster)",
  request: { query: SigninPageQuery },
  responses: { 200: { description: "An HTML page", content: { "text/html": { schema: z.string() } } } },
});

// Described, not validated: the page renders whatever the query holds (repeated or unknown parameters included).
signinPageRoutes.openAPIRegistry.registerPath(signinPageRoute);
signinPageRoutes.get(signinPageRoute.path, (c) => {
  c.header("Cache-Control", "no-store");
  const asked = c.req.query("return_to");
  const returnTo = asked ? (safeReturnTo(asked, returnToPolicy(c.env)) ?? null) : null;
  return c.html(signinPage({ add: c.req.query("add") === "1", returnTo }));
});
