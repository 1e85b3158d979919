// A stake-gated area on Cloudflare Workers with Hono (docs/kit.md, "Stake gate"): members must hold 100,000 sats
// bonded for 30 days. In a project that installed @open-oc/kit, import from "@open-oc/kit/stake/hono".
import { Hono } from "hono";
import { type OcVariables, requireStake } from "../stake/hono";

const app = new Hono<{ Variables: OcVariables }>();
// Module scope: the session keys and the check verdicts (60 s) are cached for the isolate's life.
app.use("/members/*", requireStake({ authOrigin: "https://auth.example.com", minSats: 100_000, minDays: 30 }));
app.get("/members/", (c) => c.json({ stake: c.var.oc.stake })); // {ok: true, session, stake: {sats, days, …}}

export default app;
