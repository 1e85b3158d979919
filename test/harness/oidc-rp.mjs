// A relying party on loopback for the browser tests (issue 33): serves a page that signs in with the auth host through
// oidc-client-ts (test/harness/browser/oidc-rp-page.ts, bundled here with esbuild), at / and at /callback.
import { createServer } from "node:http";
import path from "node:path";
import { build } from "esbuild";

const here = import.meta.dirname;

/** Starts the party for `authority` and `clientId` (settable later: the client is registered after it starts). */
export async function startRelyingParty({ authority }) {
  const bundle = await build({
    entryPoints: [path.join(here, "browser", "oidc-rp-page.ts")],
    bundle: true,
    format: "esm",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  const script = bundle.outputFiles[0].text;
  const state = { clientId: "" };
  const page = () => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Example app</title>
<script type="module" src="/rp.js"></script></head>
<body data-config='${JSON.stringify({ authority, client_id: state.clientId })}'>
<h1>Example app</h1><button id="signin">Sign in with Bitcoin</button><pre id="profile"></pre>
</body></html>`;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/rp.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(script);
    } else if (url.pathname === "/" || url.pathname === "/callback") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(page());
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    origin: `http://localhost:${port}`,
    setClient: (id) => {
      state.clientId = id;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
