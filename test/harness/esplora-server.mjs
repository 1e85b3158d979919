// A local Esplora-compatible chain API (the subset the verifier reads: address UTXOs and the chain tip), with an
// admin surface under /__admin for tests and the README walk-through: set UTXOs, move the tip, go down or slow
// (the whole API, or one address's UTXO reads).
import http from "node:http";

export function startEsplora({ port = 0, host = "127.0.0.1", unref = false } = {}) {
  const state = {
    utxos: new Map(),
    tip: { height: 900_000, hash: "00".repeat(32) },
    down: false,
    delayMs: 0,
    hits: new Map(),
    // Addresses whose UTXO reads fail (503): one test's chain outage without taking the chain down for the others.
    downAddresses: new Set(),
  };

  const send = (res, status, body, type = "application/json") => {
    res.writeHead(status, { "content-type": type });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
  const readJson = (req) =>
    new Promise((resolve, reject) => {
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", () => {
        try {
          resolve(data ? JSON.parse(data) : {});
        } catch (err) {
          reject(err);
        }
      });
    });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    const path = url.pathname.replace(/^\/api(?=\/)/, ""); // accept a mempool.space-style /api prefix
    try {
      if (path.startsWith("/__admin/")) return await admin(req, res, path);
      if (state.down) return send(res, 503, "service unavailable", "text/plain");
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      let match = /^\/address\/([A-Za-z0-9]+)\/utxo$/.exec(path);
      if (match && req.method === "GET") {
        state.hits.set(match[1], (state.hits.get(match[1]) ?? 0) + 1);
        if (state.downAddresses.has(match[1])) return send(res, 503, "service unavailable", "text/plain");
        return send(res, 200, state.utxos.get(match[1]) ?? []);
      }
      if (path === "/blocks/tip/height") return send(res, 200, String(state.tip.height), "text/plain");
      if (path === "/blocks/tip/hash") return send(res, 200, state.tip.hash, "text/plain");
      match = /^\/address\/([A-Za-z0-9]+)$/.exec(path);
      if (match) return send(res, 400, "Invalid Bitcoin address", "text/plain");
      return send(res, 404, "Not Found", "text/plain");
    } catch (err) {
      return send(res, 500, String(err), "text/plain");
    }
  });

  async function admin(req, res, path) {
    const match = /^\/__admin\/address\/([A-Za-z0-9]+)\/utxo$/.exec(path);
    if (match && req.method === "PUT") {
      state.utxos.set(match[1], await readJson(req));
      return send(res, 200, { ok: true });
    }
    if (match && req.method === "GET") return send(res, 200, { hits: state.hits.get(match[1]) ?? 0 });
    const down = /^\/__admin\/address\/([A-Za-z0-9]+)\/mode$/.exec(path);
    if (down && req.method === "PUT") {
      if ((await readJson(req)).down) state.downAddresses.add(down[1]);
      else state.downAddresses.delete(down[1]);
      return send(res, 200, { ok: true });
    }
    if (path === "/__admin/tip" && req.method === "PUT") {
      state.tip = { ...state.tip, ...(await readJson(req)) };
      return send(res, 200, { ok: true, tip: state.tip });
    }
    if (path === "/__admin/mode" && req.method === "PUT") {
      const mode = await readJson(req);
      state.down = Boolean(mode.down);
      state.delayMs = Number(mode.delayMs ?? 0);
      return send(res, 200, { ok: true });
    }
    return send(res, 404, { ok: false });
  }

  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      if (unref) server.unref(); // a test run must be able to exit while the fake still listens
      resolve({ url: `http://${host}:${bound}`, state, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
