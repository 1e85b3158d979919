// The provider registry: only providers with a client id and a secret, their identity kinds and endpoints.
import { describe, expect, it } from "vitest";
import {
  configuredProviders,
  findProvider,
  GITHUB_DEFAULTS,
  GOOGLE_DEFAULT_ISSUER,
} from "../../shared/auth/oauth/providers";

const all = {
  GITHUB_CLIENT_ID: "gh",
  GITHUB_CLIENT_SECRET: "gh-secret",
  GOOGLE_CLIENT_ID: "g",
  GOOGLE_CLIENT_SECRET: "g-secret",
  OIDC_ISSUER: "https://sso.example.org/realms/main",
  OIDC_CLIENT_ID: "o",
  OIDC_CLIENT_SECRET: "o-secret",
  OIDC_LABEL: "Example SSO",
};

describe("configuredProviders", () => {
  it("lists nothing when nothing is configured", () => {
    expect(configuredProviders({})).toEqual([]);
  });

  it("lists GitHub, Google and the generic issuer, in that order, with production defaults", () => {
    const providers = configuredProviders(all);
    expect(providers.map((p) => [p.id, p.label, p.kind, p.identityKind])).toEqual([
      ["github", "GitHub", "oauth2", "github"],
      ["google", "Google", "oidc", "google"],
      ["oidc", "Example SSO", "oidc", "oidc:https://sso.example.org/realms/main"],
    ]);
    expect(providers[0]).toMatchObject({ ...GITHUB_DEFAULTS, clientId: "gh", clientSecret: "gh-secret" });
    expect(providers[1]).toMatchObject({ issuer: GOOGLE_DEFAULT_ISSUER });
    expect(providers[2]).toMatchObject({ issuer: all.OIDC_ISSUER });
  });

  it("leaves out a provider missing its client id or its secret", () => {
    const ids = (env: Record<string, string>) => configuredProviders(env).map((p) => p.id);
    expect(ids({ ...all, GITHUB_CLIENT_SECRET: "" })).toEqual(["google", "oidc"]);
    expect(ids({ ...all, GOOGLE_CLIENT_ID: " " })).toEqual(["github", "oidc"]);
    const { OIDC_CLIENT_SECRET: _secret, ...noOidcSecret } = all;
    expect(ids(noOidcSecret)).toEqual(["github", "google"]);
    const { OIDC_ISSUER: _issuer, ...noIssuer } = all;
    expect(ids(noIssuer)).toEqual(["github", "google"]);
    expect(ids({ ...all, OIDC_ISSUER: "not a url" })).toEqual(["github", "google"]);
  });

  it("takes overridden endpoints and issuers (a local server), and labels an unnamed issuer by its host", () => {
    const [github, google, oidc] = configuredProviders({
      ...all,
      GITHUB_AUTHORIZE_URL: "http://127.0.0.1:9/authorize",
      GITHUB_TOKEN_URL: "http://127.0.0.1:9/token",
      GITHUB_USER_URL: "http://127.0.0.1:9/userinfo",
      GOOGLE_ISSUER: "http://127.0.0.1:9",
      OIDC_LABEL: undefined as unknown as string,
    });
    expect(github).toMatchObject({
      authorizeUrl: "http://127.0.0.1:9/authorize",
      userUrl: "http://127.0.0.1:9/userinfo",
    });
    expect(google).toMatchObject({ issuer: "http://127.0.0.1:9" });
    expect(oidc?.label).toBe("sso.example.org");
  });

  it("offers a provider only over https, or plain http to a loopback test server", () => {
    const ids = (env: Record<string, string>) => configuredProviders(env).map((p) => p.id);
    expect(ids({ ...all, OIDC_ISSUER: "http://sso.example.org" })).toEqual(["github", "google"]);
    expect(ids({ ...all, GOOGLE_ISSUER: "ftp://accounts.example" })).toEqual(["github", "oidc"]);
    expect(ids({ ...all, GITHUB_TOKEN_URL: "http://github.example/token" })).toEqual(["google", "oidc"]);
    for (const host of ["127.0.0.1:9", "localhost:9", "[::1]:9"]) {
      expect(ids({ ...all, OIDC_ISSUER: `http://${host}` })).toEqual(["github", "google", "oidc"]);
    }
    expect(ids({ ...all, OIDC_ISSUER: "http://127.0.0.1.example.com" })).toEqual(["github", "google"]);
  });

  it("finds configured providers by id only", () => {
    expect(findProvider(all, "github")?.id).toBe("github");
    expect(findProvider({ GITHUB_CLIENT_ID: "gh" }, "github")).toBeUndefined();
    expect(findProvider(all, "gitlab")).toBeUndefined();
    expect(findProvider(all, "__proto__")).toBeUndefined();
  });
});
