// The small HTTP plumbing the loopback processor servers share: read a request body, answer JSON, listen.
export function readBody(req) {
  return new Promise((resolve) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => resolve(raw));
  });
}

export function sendJson(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Listens on host:port (0: any free port) and resolves the server's base URL. */
export function listen(server, { port, host, unref }) {
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      if (unref) server.unref();
      resolve(`http://${host}:${server.address().port}`);
    });
  });
}
