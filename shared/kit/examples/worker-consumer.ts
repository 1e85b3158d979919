// A consumer site on Cloudflare Workers with Hono (docs/kit.md): the verifier at module scope (one JWKS cache per
// isolate), required sessions on /account/*, an optional one on /. In a project that installed @open-oc/kit, import
// from "@open-oc/kit/consumer" and "@open-oc/kit/consumer/hono" instead of the relative paths.
import { Hono } from "hono";
import { createSessionVerifier, isSteppedUp } from "../consumer";
import { type OcVariables, ocSession } from "../consumer/hono";

const verifier = createSessionVerifier({ authOrigin: "https://auth.example.com" });

const app = new Hono<{ Variables: OcVariables }>();
app.use("/account/*", ocSession({ verifier }));
app.use("/", ocSession({ verifier, optional: true }));
app.get("/", (c) => c.json({ signed_in: c.var.oc.session?.did_oc ?? null, why: c.var.oc.reason }));
app.get("/account/me", (c) => c.json({ did_oc: c.var.oc.session?.did_oc, name: c.var.oc.session?.display_name }));
app.post("/account/delete", (c) => {
  const session = c.var.oc.session;
  if (!session || !isSteppedUp(session, 300)) return c.json({ ok: false, reason: "step_up_required" }, 403);
  return c.json({ ok: true });
});

export default app;
