// GET /account: the account security page (issue 27). Its script only calls this host's JSON API, which applies
// every rule itself (freshness included); signed out, the page says so and links to sign-in.
import { createRoute, z } from "@hono/zod-openapi";
import { routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";
import { accountPage } from "../pages/account-page";

export const accountPageRoutes = routeGroup<AuthEnv>();

const accountPageRoute = createRoute({
  method: "get",
  path: "/account",
  summary: "The account security page (identities, security keys, recovery address, sessions, the account log)",
  request: {
    query: z.object({
      done: z.string().optional().openapi({ description: "A provider round trip that finished: link or reauth" }),
      error: z.string().optional().openapi({ description: "The reason a provider round trip was refused" }),
    }),
  },
  responses: { 200: { description: "An HTML page", content: { "text/html": { schema: z.string() } } } },
});

// Described, not validated: the page reads its own query (done, error) and ignores anything else.
accountPageRoutes.openAPIRegistry.registerPath(accountPageRoute);
accountPageRoutes.get(accountPageRoute.path, (c) => {
  c.header("Cache-Control", "no-store");
  return c.html(accountPage());
});
