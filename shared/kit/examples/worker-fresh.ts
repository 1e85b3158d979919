// Sensitive routes on Cloudflare Workers with Hono (docs/kit.md, "Freshness gates"): deleting the account needs a
// sign-in or re-authentication within 10 minutes, a payout a hardware key within 5. In a project that installed
// @open-oc/kit, import from "@open-oc/kit/consumer" and "@open-oc/kit/fresh/hono".
import { Hono } from "hono";
import { createSessionVerifier } from "../consumer";
import { type OcVariables, requireFresh, requireStepUp } from "../fresh/hono";

// Module scope, shared by both gates: one JWKS cache for the isolate's life.
const verifier = createSessionVerifier({ authOrigin: "https://auth.example.com" });

const app = new Hono<{ Variables: OcVariables }>();
app.use("/account/delete", requireFresh({ verifier, maxAge: 600 })); // 403 sudo_required, maxAge 600
app.use("/payouts/*", requireStepUp({ verifier, maxAge: 300 })); // 403 step_up_required, maxAge 300
app.post("/account/delete", (c) => c.json({ ok: true, deleted: c.var.oc.session?.did_oc }));
app.post("/payouts/send", (c) => c.json({ ok: true }));

export default app;
