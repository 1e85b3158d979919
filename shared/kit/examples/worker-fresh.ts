// Sensitive routes on Cloudflare Workers with Hono (docs/kit.md, "Freshness gate"): deleting the account needs a
// sign-in or re-authentication within 10 minutes, a payout a hardware key within 5. In a project that installed
// @open-oc/kit, import from "@open-oc/kit/consumer" and "@open-oc/kit/fresh/hono".
import { Hono } from "hono";
import { createSessionVerifier } from "../consumer";
import { type FreshVariables, requireFresh, requireStepUp } from "../fresh/hono";

const AUTH_ORIGIN = "https://auth.example.com";
// Module scope, shared by both gates: one JWKS cache for the isolate's life.
const verifier = createSessionVerifier({ jwksUrl: `${AUTH_ORIGIN}/.well-known/jwks.json`, issuer: AUTH_ORIGIN });

const app = new Hono<{ Variables: FreshVariables }>();
app.use("/account/delete", requireFresh({ verifier, sudo: 600 })); // 403 sudo_required, max_age 600
app.use("/payouts/*", requireStepUp({ verifier, maxAge: 300 })); // 403 step_up_required, max_age 300
app.post("/account/delete", (c) => c.json({ ok: true, deleted: c.var.fresh.ok && c.var.fresh.session.did_oc }));
app.post("/payouts/send", (c) => c.json({ ok: true }));

export default app;
