// The auth host as an OpenID Connect provider (issue 33), driven by a stock relying party (oauth4webapi): discovery,
// the code flow with PKCE, the ID token (verified here against the provider's JWKS with jose as well), userinfo,
// refresh tokens that rotate, RFC 7009 revocation, consent remembered and taken back, prompt and max_age, and the
// same `sub` for one account whether it signed in by BIP-322 or by an email code.

import { SELF } from "cloudflare:test";
import { importJWK, jwtVerify } from "jose";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { claims, makeStale, signedInBrowser } from "../helpers/account-security";
import { AUTH_ORIGIN } from "../helpers/browser";
import { freshEmail, lastCode, signedInByEmail } from "../helpers/email-code";
import {
  answerConsent,
  authorize,
  codeFor,
  discovered,
  exchange,
  locationOf,
  REDIRECT,
  registerClient,
  rp,
  startFlow,
  tokenRequest,
  userinfo,
} from "../helpers/oidc";

async function verifiedIdToken(idToken: string, clientId: string) {
  const res = await SELF.fetch(`${AUTH_ORIGIN}/oauth/jwks`);
  const { keys } = (await res.json()) as { keys: { kid: string }[] };
  const { payload, protectedHeader } = await jwtVerify(
    idToken,
    async (header) => importJWK(keys.find((k) => k.kid === header.kid) as never, "RS256"),
    { issuer: AUTH_ORIGIN, audience: clientId, algorithms: ["RS256"] },
  );
  return { payload, protectedHeader };
}

describe("discovery and keys", () => {
  it("publishes the endpoints, S256 only, RS256 ID tokens and an RSA key marked oc_use: oidc", async () => {
    const as = await discovered();
    expect(as).toMatchObject({
      issuer: AUTH_ORIGIN,
      authorization_endpoint: `${AUTH_ORIGIN}/oauth/authorize`,
      token_endpoint: `${AUTH_ORIGIN}/oauth/token`,
      userinfo_endpoint: `${AUTH_ORIGIN}/oauth/userinfo`,
      jwks_uri: `${AUTH_ORIGIN}/oauth/jwks`,
      revocation_endpoint: `${AUTH_ORIGIN}/oauth/token`,
      code_challenge_methods_supported: ["S256"],
      id_token_signing_alg_values_supported: ["RS256"],
      response_types_supported: ["code"],
      subject_types_supported: ["public"],
    });
    expect(as.scopes_supported).toEqual(["openid", "profile", "email", "bitcoin", "offline_access"]);
    expect(as.claims_supported).toEqual(
      expect.arrayContaining(["sub", "name", "email", "primary_btc", "auth_time", "amr", "nonce"]),
    );
    const keys = (await (await SELF.fetch(`${AUTH_ORIGIN}/oauth/jwks`)).json()) as { keys: Record<string, string>[] };
    expect(keys.keys).toHaveLength(1);
    expect(keys.keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig", oc_use: "oidc" });
    expect(keys.keys[0]).not.toHaveProperty("d");
    // The session JWKS does not carry it: a session verifier never sees the provider's key, nor the reverse.
    const session = (await (await SELF.fetch(`${AUTH_ORIGIN}/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(session.keys.map((k) => k.kid)).not.toContain(keys.keys[0]?.kid);
  });
});

describe("the code flow with a stock relying party", () => {
  it("BIP-322 account: consent, code, tokens, a verified ID token, userinfo; consent remembered next time", async () => {
    const { browser, wallet, account } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app);
    const page = await authorize(browser, flow.params);
    expect(page.res.status).toBe(200);
    const html = await page.res.clone().text();
    expect(html).toContain("Sign in to Test app");
    expect(html).toContain("app.example");
    // The consent page may send its form's answer to the app's origin (browsers check form-action on the redirect).
    expect(page.res.headers.get("content-security-policy")).toContain("form-action 'self' https://app.example");
    const allowed = await answerConsent(browser, page);
    expect(allowed.status).toBe(302);
    const result = await exchange(flow, locationOf(allowed));
    const idClaims = oauth.getValidatedIdTokenClaims(result);
    expect(idClaims).toMatchObject({
      iss: AUTH_ORIGIN,
      aud: app.client_id,
      sub: account.did_oc,
      nonce: flow.nonce,
      primary_btc: wallet.address,
      amr: ["bip322", "swk"],
      auth_time: claims(browser).sudo_at,
    });
    expect(idClaims).not.toHaveProperty("email"); // no email proven on this account
    const { payload, protectedHeader } = await verifiedIdToken(result.id_token as string, app.client_id);
    expect(protectedHeader).toMatchObject({ alg: "RS256", typ: "JWT" });
    expect(payload.at_hash).toBeTypeOf("string");
    expect(result.refresh_token).toBeUndefined(); // no offline_access asked: no refresh token
    const info = await oauth.processUserInfoResponse(
      flow.as,
      flow.client,
      account.did_oc,
      await oauth.userInfoRequest(flow.as, flow.client, result.access_token, rp),
    );
    expect(info).toEqual({ sub: account.did_oc, primary_btc: wallet.address });

    // Allowed once: the next authorization goes straight back with a code.
    const again = await startFlow(app);
    const straight = await authorize(browser, again.params);
    expect(straight.res.status).toBe(302);
    expect(locationOf(straight.res).searchParams.get("code")).toBeTruthy();
  });

  it("refresh tokens rotate (a used one is refused) and revocation ends a token (RFC 7009)", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app, "openid offline_access");
    const first = await exchange(flow, await codeFor(browser, flow));
    const refreshed = await oauth.processRefreshTokenResponse(
      flow.as,
      flow.client,
      await oauth.refreshTokenGrantRequest(flow.as, flow.client, flow.auth, first.refresh_token as string, rp),
    );
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    const refreshedClaims = oauth.getValidatedIdTokenClaims(refreshed);
    expect(refreshedClaims?.sub).toBe(oauth.getValidatedIdTokenClaims(first)?.sub);
    expect(refreshedClaims).not.toHaveProperty("nonce");
    // The new refresh token used once. Revocation at the token endpoint (discovery's revocation_endpoint): the
    // access token stops at userinfo.
    await oauth.processRefreshTokenResponse(
      flow.as,
      flow.client,
      await oauth.refreshTokenGrantRequest(flow.as, flow.client, flow.auth, refreshed.refresh_token as string, rp),
    );
    expect((await userinfo(refreshed.access_token)).status).toBe(200);
    const revoked = await oauth.revocationRequest(flow.as, flow.client, flow.auth, refreshed.access_token, rp);
    await oauth.processRevocationResponse(revoked);
    expect((await userinfo(refreshed.access_token)).status).toBe(401);
    // The old refresh token is refused (and, as a reuse, ends the grant: test/auth/oidc-grants.test.ts).
    const stale = await oauth.refreshTokenGrantRequest(
      flow.as,
      flow.client,
      flow.auth,
      first.refresh_token as string,
      rp,
    );
    expect(stale.status).toBe(400);
    expect(((await stale.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("an email-code sign-in of the same account gets the same sub, the email claim, and amr otp", async () => {
    const { browser, account } = await signedInBrowser();
    const email = freshEmail("oidc");
    // The BIP-322 account links an email (a code to it), so a later email sign-in is the same account.
    expect((await browser.post("/api/auth/identities/email/start", { email })).status).toBe(200);
    const linked = await browser.post("/api/auth/identities/email/verify", { email, code: await lastCode(email) });
    expect(linked.status, await linked.clone().text()).toBe(200);
    const app = await registerClient(browser);
    const byBip322 = await startFlow(app);
    const first = oauth.getValidatedIdTokenClaims(await exchange(byBip322, await codeFor(browser, byBip322)));
    const byEmail = await signedInByEmail(email);
    expect(byEmail.did).toBe(account.did_oc);
    const flow = await startFlow(app);
    const second = oauth.getValidatedIdTokenClaims(await exchange(flow, await codeFor(byEmail.browser, flow)));
    expect(second?.sub).toBe(first?.sub);
    expect(second).toMatchObject({ sub: account.did_oc, email, email_verified: true, amr: ["email", "otp"] });
  });
});

describe("consent, prompt and max_age", () => {
  it("prompt=login and an old sign-in under max_age send the browser to sign in again, then resume with a fresh auth_time", async () => {
    const { browser, wallet } = await signedInBrowser();
    const app = await registerClient(browser);
    // Allowed once, so the fresh sign-ins below come back with a code, not the consent page.
    const allowed = await startFlow(app);
    await exchange(allowed, await codeFor(browser, allowed));
    await makeStale(browser);
    for (const extra of [{ prompt: "login" }, { max_age: "60" }] as Record<string, string>[]) {
      const flow = await startFlow(app, "openid", extra);
      const first = await authorize(browser, flow.params);
      expect(first.res.status).toBe(302);
      const signin = locationOf(first.res);
      expect(signin.pathname).toBe("/signin");
      const resume = signin.searchParams.get("return_to") as string;
      expect(resume).toMatch(/^\/oauth\/authorize\?oc_resume=[A-Za-z0-9_-]+$/);
      // The sign-in page accepts it as its return_to (a path on this host).
      expect(await (await browser.fetch(`/signin?return_to=${encodeURIComponent(resume)}`)).text()).toContain(
        `data-return-to="${resume}"`,
      );
      const before = Math.floor(Date.now() / 1000);
      expect((await browser.signIn(wallet, { add: true })).status).toBe(200);
      const back = await browser.fetch(resume, { headers: { "sec-fetch-site": "same-origin" } });
      expect(back.status).toBe(302);
      const code = locationOf(back);
      const result = await exchange(flow, code);
      expect(oauth.getValidatedIdTokenClaims(result)?.auth_time).toBeGreaterThanOrEqual(before);
      await makeStale(browser);
    }
  });

  it("prompt=none: login_required without a session, consent_required before consent", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app, "openid", { prompt: "none" });
    const noConsent = await authorize(browser, flow.params);
    expect(locationOf(noConsent.res).searchParams.get("error")).toBe("consent_required");
    const signedOut = await authorize(new (browser.constructor as new () => typeof browser)(), flow.params);
    const back = locationOf(signedOut.res);
    expect(back.searchParams.get("error")).toBe("login_required");
    expect(back.searchParams.get("state")).toBe(flow.state);
    expect(back.searchParams.get("iss")).toBe(AUTH_ORIGIN);
  });

  it("a consent taken back is asked again and the app's tokens for the account stop", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser, { name: "Forgettable" });
    const flow = await startFlow(app);
    const tokens = await exchange(flow, await codeFor(browser, flow));
    const listed = (await (await browser.fetch("/api/oidc/consents")).json()) as {
      consents: { client_id: string; scopes: string[] }[];
    };
    expect(listed.consents).toEqual([
      expect.objectContaining({ client_id: app.client_id, scopes: ["openid", "profile", "email", "bitcoin"] }),
    ]);
    expect((await browser.fetch(`/api/oidc/consents/${app.client_id}`, { method: "DELETE" })).status).toBe(200);
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    const refresh = await tokenRequest(
      { grant_type: "refresh_token", refresh_token: tokens.refresh_token as string },
      {
        authorization: `Basic ${btoa(`${app.client_id}:${app.client_secret}`)}`,
      },
    );
    expect(refresh.status).toBe(400);
    const again = await authorize(browser, (await startFlow(app)).params);
    expect(again.res.status).toBe(200); // the consent page again
    // Deny: back to the app with access_denied.
    const denied = await answerConsent(browser, again, "deny");
    expect(denied.status).toBe(302);
    expect(locationOf(denied).searchParams.get("error")).toBe("access_denied");
    expect(`${locationOf(denied).origin}${locationOf(denied).pathname}`).toBe(REDIRECT);
  });
});
