#!/usr/bin/env node
// A consumer site in plain Node (docs/quickstart/consumer-site.md): verifies the auth host's oc_session cookie (or a
// bearer token) locally against its JWKS, with no call to the host per request.
//   AUTH_ORIGIN=http://localhost:8787 PORT=3000 node shared/kit/examples/consumer-site.mjs
//   GET /          who is signed in, or null (optional session)
//   GET /private   401 {ok:false, reason:"session_missing"} (or why the session is refused) unless signed in
//   GET /sudo      403 unless the sign-in (sudo_at) is at most 5 minutes old
import http from "node:http";
import { createSessionVerifier, isSudo } from "@open-oc/kit/consumer";
import { withSession } from "@open-oc/kit/consumer/node";

const AUTH_ORIGIN = process.env.AUTH_ORIGIN ?? "http://localhost:8787";
// One verifier for the process: it holds the JWKS cache.
const verifier = createSessionVerifier({ authOrigin: AUTH_ORIGIN });

function send(res, status, body) {
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(body));
}

const server = http.createServer(
  withSession({ verifier, optional: true }, (req, res) => {
    const { session, reason } = req.oc;
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/") return send(res, 200, { signed_in: session ? session.did_oc : null, why: reason });
    if (!session) return send(res, 401, { ok: false, reason });
    if (path === "/private") {
      return send(res, 200, {
        ok: true,
        did_oc: session.did_oc,
        name: session.display_name,
        btc: session.primary_btc,
      });
    }
    if (path === "/sudo") {
      return isSudo(session, 300)
        ? send(res, 200, { ok: true, sudo: true })
        : send(res, 403, { ok: false, reason: "sudo_required" });
    }
    return send(res, 404, { ok: false, reason: "not_found" });
  }),
);
server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  console.log(`consumer site on http://localhost:${server.address().port} (auth host ${AUTH_ORIGIN})`);
});
