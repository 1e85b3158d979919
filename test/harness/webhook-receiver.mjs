// A webhook receiver on loopback for the fleet tests, verifying every delivery with the stock libraries over the
// raw bytes: @octokit/webhooks-methods for X-Service-Signature (sha256=…) and standardwebhooks for the Standard
// Webhooks headers. The path picks the behaviour: /ok/<name> answers 200, /fail/<name> 500, /hang/<name> answers
// only after 9 s (past the 8-second limit). Admin: PUT /__admin/secret {path, secret}; GET /__admin/received?path=.
import http from "node:http";
import { verify as verifyGithubStyle } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";

export function startReceiver({ port = 0, host = "127.0.0.1", unref = false } = {}) {
  const secrets = new Map();
  const received = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const url = new URL(req.url, "http://x");
      if (url.pathname === "/__admin/secret" && req.method === "PUT") {
        const { path, secret } = JSON.parse(raw);
        secrets.set(path, secret);
        return res.end("{}");
      }
      if (url.pathname === "/__admin/received") {
        const path = url.searchParams.get("path");
        res.setHeader("content-type", "application/json");
        return res.end(JSON.stringify(received.filter((r) => !path || r.path === path)));
      }
      const secret = secrets.get(url.pathname);
      let serviceOk = false;
      let standardOk = false;
      if (secret) {
        serviceOk = await verifyGithubStyle(secret, raw, String(req.headers["x-service-signature"] ?? "")).catch(
          () => false,
        );
        try {
          new Webhook(secret).verify(raw, {
            "webhook-id": String(req.headers["webhook-id"]),
            "webhook-timestamp": String(req.headers["webhook-timestamp"]),
            "webhook-signature": String(req.headers["webhook-signature"]),
          });
          standardOk = true;
        } catch {}
      }
      received.push({ path: url.pathname, headers: req.headers, body: raw, serviceOk, standardOk, at: Date.now() });
      if (url.pathname.startsWith("/fail/")) {
        res.statusCode = 500;
        return res.end("no");
      }
      if (url.pathname.startsWith("/hang/")) {
        setTimeout(() => res.end("late"), 9_000).unref();
        return;
      }
      res.end("ok");
    });
  });
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      if (unref) server.unref();
      resolve({ url: `http://${host}:${server.address().port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
