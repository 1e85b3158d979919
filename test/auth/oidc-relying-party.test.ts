// A relying party built on openid-client 6 with its strict checks on (issue 44, "Done when"): discovery, the code
// flow with PKCE, state and nonce, the ID token's signature checked through `jwks_uri` (non-repudiation checks),
// `auth_time` against `max_age`, `at_hash` computed here from the access token, userinfo for the ID token's `sub`,
// the refresh that rotates (a new ID token, checked the same way), and RFC 7009 revocation, after which neither the
// refresh token nor the grant's access token works. Every request goes to the auth worker (SELF).
import { SELF } from "cloudflare:test";
import * as client from "openid-client";
import { describe, expect, it } from "vitest";
import { makeStale, signedInBrowser } from "../helpers/account-security";
import type { Browser } from "../helpers/browser";
import {
  answerConsent,
  authorize,
  ISSUER,
  locationOf,
  REDIRECT,
  type RegisteredClient,
  registerClient,
  userinfo,
} from "../helpers/oidc";

/** openid-client's configuration for a registered app: its requests to this worker, over the local http issuer. */
async function configure(
  registered: RegisteredClient,
  method: SecretMethod = "client_secret_post",
): Promise<client.Configuration> {
  const fetchHere: client.CustomFetch = (url, options) => SELF.fetch(url, options as RequestInit);
  const secret = registered.client_secret;
  const auth = secret === null ? client.None() : SECRET_METHODS[method](secret);
  return client.discovery(ISSUER, registered.client_id, undefined, auth, {
    execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
    [client.customFetch]: fetchHere,
  });
}

/** The two ways a confidential app sends its secret, both announced in discovery (openid-client's default: post). */
const SECRET_METHODS = { client_secret_post: client.ClientSecretPost, client_secret_basic: client.ClientSecretBasic };
type SecretMethod = keyof typeof SECRET_METHODS;

/** OIDC Core 3.1.3.8: the left half of the SHA-256 of the access token's ASCII, base64url. */
async function expectedAtHash(accessToken: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken)));
  const half = digest.slice(0, digest.length / 2);
  return btoa(String.fromCharCode(...half))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

interface Request {
  url: URL;
  verifier: string;
  nonce: string;
  state: string;
}

async function authorizationRequest(config: client.Configuration, scope: string, maxAge: number): Promise<Request> {
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    nonce,
    state,
    max_age: String(maxAge),
  });
  return { url, verifier, nonce, state };
}

/** The person's part: the authorization endpoint, the consent page when it is shown, and the way back to the app. */
async function backToApp(browser: Browser, request: Request): Promise<Response> {
  const page = await authorize(browser, Object.fromEntries(request.url.searchParams));
  return page.res.status === 200 ? answerConsent(browser, page) : page.res;
}

describe("openid-client 6 as the relying party (strict checks)", () => {
  const apps: [string, "public" | "confidential", SecretMethod][] = [
    ["a confidential app, client_secret_post (openid-client's default)", "confidential", "client_secret_post"],
    ["a confidential app, client_secret_basic", "confidential", "client_secret_basic"],
    ["a public app", "public", "client_secret_post"],
  ];
  it.each(apps)("signs in, reads userinfo, refreshes and revokes: %s", async (_name, type, method) => {
    const { browser } = await signedInBrowser();
    const config = await configure(await registerClient(browser, { type }), method);
    const request = await authorizationRequest(config, "openid profile offline_access", 300);
    const back = await backToApp(browser, request);
    expect(back.status).toBe(302);

    const tokens = await client.authorizationCodeGrant(config, locationOf(back), {
      pkceCodeVerifier: request.verifier,
      expectedNonce: request.nonce,
      expectedState: request.state,
      maxAge: 300,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new Error("no ID token");
    expect(idClaims.iss).toBe(ISSUER.href.replace(/\/$/, ""));
    expect(idClaims.aud).toBe(config.clientMetadata().client_id);
    expect(idClaims.nonce).toBe(request.nonce);
    expect(typeof idClaims.auth_time).toBe("number");
    expect(idClaims.at_hash).toBe(await expectedAtHash(tokens.access_token));
    expect(tokens.refresh_token).toBeTruthy();

    const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
    expect(info.sub).toBe(idClaims.sub);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    const refreshedClaims = refreshed.claims();
    if (!refreshedClaims) throw new Error("no ID token on refresh");
    expect(refreshedClaims.sub).toBe(idClaims.sub);
    expect(refreshedClaims.auth_time).toBe(idClaims.auth_time);
    expect(refreshedClaims.at_hash).toBe(await expectedAtHash(refreshed.access_token));
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await client.fetchUserInfo(config, refreshed.access_token, idClaims.sub)).sub).toBe(idClaims.sub);

    await client.tokenRevocation(config, refreshed.refresh_token as string);
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
    expect((await userinfo(refreshed.access_token)).status).toBe(401);
  });

  it("an older sign-in than max_age allows is sent to sign in again, never answered a code", async () => {
    const { browser } = await signedInBrowser();
    const config = await configure(await registerClient(browser, { type: "confidential" }));
    const first = await authorizationRequest(config, "openid", 300);
    expect((await backToApp(browser, first)).status).toBe(302);
    await makeStale(browser);
    const again = await authorizationRequest(config, "openid", 60);
    const res = await backToApp(browser, again);
    expect(res.status).toBe(302);
    expect(locationOf(res).pathname).toBe("/signin");
  });
});
