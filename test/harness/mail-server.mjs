// A Resend-compatible mail API on loopback (POST /emails with a Bearer key), recording what it is sent, for the
// auth host's email-code and contact tests. Admin: GET /__admin/emails?to=<address>; PUT /__admin/mode {down}.
import http from "node:http";

export function startMail({ port = 0, host = "127.0.0.1", unref = false, apiKey = "test-mail-key" } = {}) {
  const sent = [];
  const state = { down: false };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const url = new URL(req.url, "http://x");
      const send = (status, body) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === "/__admin/emails") {
        const to = url.searchParams.get("to");
        return send(
          200,
          sent.filter((m) => !to || m.to.includes(to)),
        );
      }
      if (url.pathname === "/__admin/mode" && req.method === "PUT") {
        state.down = Boolean(JSON.parse(raw || "{}").down);
        return send(200, { ok: true });
      }
      if (url.pathname === "/emails" && req.method === "POST") {
        if (state.down) return send(500, { message: "mail service down" });
        if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { message: "invalid api key" });
        const mail = JSON.parse(raw);
        if (!mail.from || !mail.to || !mail.subject) return send(422, { message: "missing field" });
        const id = `mail_${sent.length + 1}`;
        sent.push({ id, ...mail, to: [].concat(mail.to) });
        return send(200, { id });
      }
      send(404, { message: "not found" });
    });
  });
  /** The code (six digits in the subject) of the next mail to `to` after the first `seen`, waiting up to 5 s for it. */
  async function nextCode(to, seen) {
    for (let i = 0; i < 200; i++) {
      const mails = sent.filter((m) => m.to.includes(to));
      const code = mails.length > seen ? /(\d{6})/.exec(mails.at(-1).subject)?.[1] : undefined;
      if (code) return code;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no code mailed to ${to}`);
  }
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      if (unref) server.unref();
      resolve({
        url: `http://${host}:${server.address().port}`,
        apiKey,
        nextCode,
        close: () => new Promise((r) => server.close(r)),
      });
    });
  });
}
