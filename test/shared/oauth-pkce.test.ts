// PKCE (RFC 7636), state and nonce, and the authorization request built from them.
import { describe, expect, it } from "vitest";
import { authorizationUrl, redirectUri } from "../../shared/auth/oauth/authorize-url";
import { createNonce, createPkce, createState, pkceChallenge } from "../../shared/auth/oauth/pkce";

const BASE64URL_43 = /^[A-Za-z0-9_-]{43}$/;

describe("PKCE", () => {
  it("derives the RFC 7636 appendix B challenge (S256) from its verifier", async () => {
    expect(await pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("makes a fresh 43-character verifier from 32 random bytes, with its S256 challenge", async () => {
    const a = await createPkce();
    const b = await createPkce();
    expect(a.verifier).toMatch(BASE64URL_43);
    expect(a.method).toBe("S256");
    expect(a.challenge).toBe(await pkceChallenge(a.verifier));
    expect(a.verifier).not.toBe(b.verifier);
  });

  it("makes unguessable state and nonce values, never repeated", () => {
    const values = new Set(Array.from({ length: 50 }, () => [createState(), createNonce()]).flat());
    expect(values.size).toBe(100);
    for (const value of values) expect(value).toMatch(BASE64URL_43);
  });
});

describe("authorization request", () => {
  it("carries response_type=code, the exact redirect URI, scope, state, the S256 challenge and the nonce", () => {
    const url = new URL(
      authorizationUrl({
        endpoint: "https://idp.example/authorize?tenant=acme&state=stale",
        clientId: "client 1",
        redirectUri: redirectUri("https://auth.example.com", "oidc"),
        scope: "openid profile",
        state: "s",
        codeChallenge: "c",
        nonce: "n",
      }),
    );
    expect(url.origin + url.pathname).toBe("https://idp.example/authorize");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: "acme",
      response_type: "code",
      client_id: "client 1",
      redirect_uri: "https://auth.example.com/api/auth/oidc/callback",
      scope: "openid profile",
      state: "s",
      code_challenge: "c",
      code_challenge_method: "S256",
      nonce: "n",
    });
  });

  it("sends no nonce when the provider is not OpenID Connect", () => {
    const url = new URL(
      authorizationUrl({
        endpoint: "https://github.com/login/oauth/authorize",
        clientId: "c",
        redirectUri: redirectUri("http://localhost:8787/", "github"),
        scope: "read:user",
        state: "s",
        codeChallenge: "c",
      }),
    );
    expect(url.searchParams.has("nonce")).toBe(false);
    expect(url.searchParams.get("redirect_uri")).toBe("http://localhost:8787/api/auth/github/callback");
  });
});
