// A local nostr relay speaking NIP-01 over WebSocket: EVENT (id and Schnorr signature checked, kind 30000-39999
// replaceable by pubkey+kind+d), REQ with ids/authors/kinds/#tag/since/until/limit filters, EOSE, CLOSE.
// Admin surface under /__admin (HTTP, same port): go down (refuse upgrades) or slow, reset, list events.
import http from "node:http";
import { WebSocketServer } from "ws";
import { verifyEvent } from "./nostr-event.mjs";

function matches(event, filter) {
  if (filter.ids && !filter.ids.includes(event.id)) return false;
  if (filter.authors && !filter.authors.includes(event.pubkey)) return false;
  if (filter.kinds && !filter.kinds.includes(event.kind)) return false;
  if (filter.since !== undefined && event.created_at < filter.since) return false;
  if (filter.until !== undefined && event.created_at > filter.until) return false;
  for (const [key, values] of Object.entries(filter)) {
    if (!/^#[a-zA-Z]$/.test(key)) continue;
    if (!event.tags.some((t) => t[0] === key.slice(1) && values.includes(t[1]))) return false;
  }
  return true;
}

export function startRelay({ port = 0, host = "127.0.0.1", unref = false } = {}) {
  const state = { events: [], down: false, delayMs: 0, requests: 0 };
  const server = http.createServer((req, res) => {
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      if (req.url === "/__admin/mode" && req.method === "PUT") {
        const mode = JSON.parse(data || "{}");
        state.down = Boolean(mode.down);
        state.delayMs = Number(mode.delayMs ?? 0);
        return send(200, { ok: true });
      }
      if (req.url === "/__admin/reset" && req.method === "POST") {
        state.events = [];
        return send(200, { ok: true });
      }
      if (req.url === "/__admin/events" && req.method === "GET")
        return send(200, { events: state.events, requests: state.requests });
      return send(404, { ok: false, note: "nostr relay: connect with a WebSocket" });
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    if (state.down) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws));
  });
  wss.on("connection", (ws) => {
    ws.on("message", async (raw) => {
      let msg;
      try {
        msg = JSON.parse(raw.toString());
      } catch {
        return ws.send(JSON.stringify(["NOTICE", "invalid: not JSON"]));
      }
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (msg[0] === "EVENT") {
        const event = msg[1];
        if (!verifyEvent(event))
          return ws.send(JSON.stringify(["OK", event?.id ?? "", false, "invalid: bad id or signature"]));
        if (event.kind >= 30000 && event.kind < 40000) {
          const d = event.tags.find((t) => t[0] === "d")?.[1] ?? "";
          state.events = state.events.filter(
            (e) =>
              !(
                e.pubkey === event.pubkey &&
                e.kind === event.kind &&
                (e.tags.find((t) => t[0] === "d")?.[1] ?? "") === d
              ),
          );
        }
        state.events.push(event);
        return ws.send(JSON.stringify(["OK", event.id, true, ""]));
      }
      if (msg[0] === "REQ") {
        state.requests += 1;
        const [, subId, ...filters] = msg;
        const seen = new Set();
        for (const filter of filters) {
          const found = state.events.filter((e) => matches(e, filter)).sort((a, b) => b.created_at - a.created_at);
          for (const event of found.slice(0, filter.limit ?? found.length)) {
            if (seen.has(event.id)) continue;
            seen.add(event.id);
            ws.send(JSON.stringify(["EVENT", subId, event]));
          }
        }
        return ws.send(JSON.stringify(["EOSE", subId]));
      }
      if (msg[0] === "CLOSE") return ws.send(JSON.stringify(["CLOSED", msg[1], ""]));
    });
  });
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      if (unref) server.unref(); // a test run must be able to exit while the fake still listens
      resolve({
        url: `ws://${host}:${bound}`,
        adminUrl: `http://${host}:${bound}`,
        state,
        close: () =>
          new Promise((r) => {
            for (const client of wss.clients) client.terminate();
            server.close(r);
          }),
      });
    });
  });
}
