// GET /signin: the sign-in page. Its script only calls this host's JSON API, which applies every rule itself.
import { Hono } from "hono";
import type { AuthEnv } from "../env";
import { signinPage } from "../pages/signin-page";

export const signinPageRoutes = new Hono<AuthEnv>();

signinPageRoutes.get("/signin", (c) => {
  c.header("Cache-Control", "no-store");
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
  return c.html(signinPage({ add: c.req.query("add") === "1" }));
});
