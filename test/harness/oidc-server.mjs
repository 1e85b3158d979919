// A real local OAuth 2.0 / OpenID Connect provider for the auth host's tests and the README walk-through
// (oauth2-mock-server: discovery, /authorize, /token with PKCE, /userinfo, RS256 id_tokens, JWKS), on a server of
// our own so a test run can unref it and exit.
import http from "node:http";
import { OAuth2Issuer, OAuth2Service } from "oauth2-mock-server";

export async function startOidc({ port = 0, host = "127.0.0.1", unref = false } = {}) {
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate("RS256");
  const service = new OAuth2Service(issuer);
  const server = http.createServer(service.requestHandler);
  await new Promise((resolve) => server.listen(port, host, resolve));
  if (unref) server.unref();
  issuer.url = `http://${host}:${server.address().port}`;
  return { issuer: issuer.url, service, close: () => new Promise((r) => server.close(r)) };
}
