// GET /signin: the sign-in page. Its script only calls this host's JSON API, which applies every rule itself. The
// page returns to `return_to` after sign-in only when the return-to policy allows it (the server decides and puts
// the checked value in the page); anything else is dropped, so the page is no open redirect and no `javascript:`.
import { Hono } from "hono";
import { returnToPolicy, safeReturnTo } from "../../../../shared/auth/oauth/return-to";
import type { AuthEnv } from "../env";
import { signinPage } from "../pages/signin-page";

export const signinPageRoutes = new Hono<AuthEnv>();

signinPageRoutes.get("/signin", (c) => {
  c.header("Cache-Control", "no-store");
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
  const asked = c.req.query("return_to");
  const returnTo = asked ? (safeReturnTo(asked, returnToPolicy(c.env)) ?? null) : null;
  return c.html(signinPage({ add: c.req.query("add") === "1", returnTo }));
});
