// A real local OAuth 2.0 / OpenID Connect provider for the auth host's tests and the README walk-through
// (oauth2-mock-server: discovery, /authorize, /token with PKCE, /userinfo, RS256 id_tokens, JWKS), on a server of
// our own so a test run can unref it and exit. A second issuer on the same port, under RFC9207_PATH, announces
// RFC 9207 in its metadata and puts `iss` on every authorization response, as a provider that supports it does.
// A client whose id is a key of TAMPER gets id_tokens broken in that one way (the id_token checks' tests); one
// whose id is a key of CLAIMS gets those claims added (the display-name tests).
import http from "node:http";
import { OAuth2Issuer, OAuth2Service } from "oauth2-mock-server";

/** Where the RFC 9207 issuer lives: `<issuer>/rfc9207` is its issuer identifier. */
export const RFC9207_PATH = "/rfc9207";

/** For client `tamper-<what>`: the one change to its id_tokens (signed as usual, with the issuer's key). */
const TAMPER = new Map(
  Object.entries({
    "tamper-aud": (token) => Object.assign(token.payload, { aud: "another-client" }),
    "tamper-azp": (token) =>
      Object.assign(token.payload, { aud: [token.payload.aud, "another-client"], azp: "another-client" }),
    "tamper-iss": (token) => Object.assign(token.payload, { iss: "https://evil.example" }),
    "tamper-exp": (token) => Object.assign(token.payload, { exp: Math.floor(Date.now() / 1000) - 600 }),
    "tamper-kid": (token) => Object.assign(token.header, { kid: "a-key-the-issuer-never-published" }),
  }),
);

/** For client `with-<what>`: claims added to its id_tokens, as a provider that shares them sends them. */
const CLAIMS = new Map(Object.entries({ "with-email": { email: "ada@example.com" } }));

async function mockIssuer() {
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate("RS256");
  return { issuer, service: new OAuth2Service(issuer) };
}

export async function startOidc({ port = 0, host = "127.0.0.1", unref = false } = {}) {
  const plain = await mockIssuer();
  // An id_token's aud is the client id; access tokens carry no aud here, so only id_tokens are touched.
  plain.service.on("beforeTokenSigning", (token) => {
    TAMPER.get(token.payload.aud)?.(token);
    Object.assign(token.payload, CLAIMS.get(token.payload.aud));
  });
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
