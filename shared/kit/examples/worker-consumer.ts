// A consumer site on Cloudflare Workers with Hono (docs/kit.md): the verifier at module scope (one JWKS cache per
// isolate), required sessions on /account/*, an optional one on /. In a project that installed @open-oc/kit, import
// from "@open-oc/kit/consumer" and "@open-oc/kit/consumer/hono" instead of the relative paths.
import { Hono } from "hono";
import { createSessionVerifier, isSteppedUp } from "../consumer";
import { ocSession, type SessionVariables } from "../consumer/hono";

const AUTH_ORIGIN = "https://auth.example.com";
const verifier = createSessionVerifier({ jwksUrl: `${AUTH_ORIGIN}/.well-known/jwks.json`, issuer: AUTH_ORIGIN });

const app = new Hono<{ Variables: SessionVariables }>();
app.use("/account/*", ocSession(verifier));
app.use("/", ocSession(verifier, { optional: true }));
app.get("/", (c) => c.json({ signed_in: c.var.session?.did_oc ?? null }));
app.get("/account/me", (c) => c.json({ did_oc: c.var.session?.did_oc, name: c.var.session?.display_name }));
app.post("/account/delete", (c) => {
  const session = c.var.session;
  if (!session || !isSteppedUp(session, 300)) return c.json({ ok: false, reason: "reauthentication_required" }, 403);
  return c.json({ ok: true });
});

export default app;
