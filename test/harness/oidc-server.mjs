// A real local OAuth 2.0 / OpenID Connect provider for the auth host's tests and the README walk-through
// (oauth2-mock-server: discovery, /authorize, /token with PKCE, /userinfo, RS256 id_tokens, JWKS), on a server of
// our own so a test run can unref it and exit. A second issuer on the same port, under RFC9207_PATH, announces
// RFC 9207 in its metadata and puts `iss` on every authorization response, as a provider that supports it does.
import http from "node:http";
import { OAuth2Issuer, OAuth2Service } from "oauth2-mock-server";

/** Where the RFC 9207 issuer lives: `<issuer>/rfc9207` is its issuer identifier. */
export const RFC9207_PATH = "/rfc9207";

async function mockIssuer() {
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate("RS256");
  return { issuer, service: new OAuth2Service(issuer) };
}

export async function startOidc({ port = 0, host = "127.0.0.1", unref = false } = {}) {
  const plain = await mockIssuer();
  const announcing = await mockIssuer();
  announcing.service.on("beforeWellKnownOpenIdConfiguration", (metadata) => {
    metadata.body.authorization_response_iss_parameter_supported = true;
  });
  announcing.service.on("beforeAuthorizeRedirect", ({ url }) => {
    url.searchParams.set("iss", announcing.issuer.url);
  });
  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === RFC9207_PATH || url.startsWith(`${RFC9207_PATH}/`) || url.startsWith(`${RFC9207_PATH}?`)) {
      req.url = url.slice(RFC9207_PATH.length) || "/";
      announcing.service.requestHandler(req, res);
      return;
    }
    plain.service.requestHandler(req, res);
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  if (unref) server.unref();
  plain.issuer.url = `http://${host}:${server.address().port}`;
  announcing.issuer.url = `${plain.issuer.url}${RFC9207_PATH}`;
  return {
    issuer: plain.issuer.url,
    rfc9207Issuer: announcing.issuer.url,
    service: plain.service,
    close: () => new Promise((r) => server.close(r)),
  };
}
