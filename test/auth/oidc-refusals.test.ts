// What the OpenID provider refuses (issue 33), each with its test: a redirect URI not registered or one character
// off (never redirected to: a page says why), a code used twice (and what it issued revoked), PKCE missing or
// `plain`, a wrong code verifier, a nonce used again, an expired code, a client secret sent by a public client, and
// at userinfo anything but a live access token of this provider for a live app (an ID token, a session token, a
// token whose app was revoked).
import { env } from "cloudflare:test";
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { signedInBrowser } from "../helpers/account-security";
import {
  authorize,
  basic,
  codeFor,
  consentForm,
  exchange,
  locationOf,
  REDIRECT,
  registerClient,
  startFlow,
  tokenRequest,
  userinfo,
} from "../helpers/oidc";

async function errorOf(res: Response) {
  return ((await res.json()) as { error: string }).error;
}

describe("authorization requests refused", () => {
  it("a redirect URI not registered, or one character off, is never redirected to", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    for (const redirect of [
      "https://evil.example/callback",
      `${REDIRECT}/`,
      "https://app.example/callbacK",
      `${REDIRECT}?x=1`,
    ]) {
      const flow = await startFlow(app, "openid", { redirect_uri: redirect });
      const { res } = await authorize(browser, flow.params);
      expect(res.status, redirect).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).toContain("This sign-in request cannot go on");
    }
  });

  it("PKCE missing or plain, and a request without openid, go back to the app as errors", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app);
    const { code_challenge: _c, code_challenge_method: _m, ...noPkce } = flow.params;
    for (const params of [
      noPkce,
      { ...flow.params, code_challenge_method: "plain", code_challenge: flow.verifier },
      { ...flow.params, scope: "profile" },
    ]) {
      const { res } = await authorize(browser, params);
      expect(res.status).toBe(302);
      const back = locationOf(res);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get("error")).toMatch(/^invalid_(request|scope)$/);
      expect(back.searchParams.get("code")).toBeNull();
      expect(back.searchParams.get("state")).toBe(flow.state);
    }
  });

  it("a nonce used once is refused the second time", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app);
    await exchange(flow, await codeFor(browser, flow));
    const replay = await startFlow(app, "openid", { nonce: flow.nonce });
    const { res } = await authorize(browser, replay.params);
    expect(res.status).toBe(302);
    expect(locationOf(res).searchParams.get("error")).toBe("invalid_request");
    expect(locationOf(res).searchParams.get("error_description")).toContain("nonce");
  });
});

describe("token requests refused", () => {
  it("a code used twice: invalid_grant, and the tokens it issued are revoked", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app);
    const back = await codeFor(browser, flow);
    const tokens = await exchange(flow, back);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    const form = {
      grant_type: "authorization_code",
      code: back.searchParams.get("code") as string,
      redirect_uri: REDIRECT,
      code_verifier: flow.verifier,
    };
    const replay = await tokenRequest(form, { authorization: basic(app.client_id, app.client_secret as string) });
    expect(replay.status).toBe(400);
    expect(await errorOf(replay)).toBe("invalid_grant");
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    const refresh = await tokenRequest(
      { grant_type: "refresh_token", refresh_token: tokens.refresh_token as string },
      { authorization: basic(app.client_id, app.client_secret as string) },
    );
    expect(await errorOf(refresh)).toBe("invalid_grant");
  });

  it("a code exchanged again where KV still holds its grant as it was: invalid_grant, and what it issued is revoked", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app);
    const back = await codeFor(browser, flow);
    const code = back.searchParams.get("code") as string;
    const [userId, grantId] = code.split(":");
    const key = `grant:${userId}:${grantId}`;
    // What another location's KV may still answer for a minute after the exchange (KV is eventually consistent).
    const before = await env.KV.getWithMetadata(key);
    const expiration = (await env.KV.list({ prefix: key })).keys[0]?.expiration as number;
    const tokens = await exchange(flow, back);
    await env.KV.put(key, before.value as string, { expiration });
    const again = await tokenRequest(
      { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: flow.verifier },
      { authorization: basic(app.client_id, app.client_secret as string) },
    );
    const body = (await again.json()) as { error?: string; access_token?: string };
    expect(again.status).toBe(400);
    expect(body.error).toBe("invalid_grant");
    expect(body.access_token).toBeUndefined();
    expect((await userinfo(tokens.access_token)).status).toBe(401);
  });

  it("a wrong code verifier, and no verifier: refused", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app);
    const back = await codeFor(browser, flow);
    const auth = { authorization: basic(app.client_id, app.client_secret as string) };
    const base = {
      grant_type: "authorization_code",
      code: back.searchParams.get("code") as string,
      redirect_uri: REDIRECT,
    };
    const wrong = await tokenRequest({ ...base, code_verifier: oauth.generateRandomCodeVerifier() }, auth);
    expect(wrong.status).toBe(400);
    expect(await errorOf(wrong)).toBe("invalid_grant");
    const flow2 = await startFlow(app);
    const back2 = await codeFor(browser, flow2);
    const none = await tokenRequest({ ...base, code: back2.searchParams.get("code") as string }, auth);
    expect(none.status).toBe(400);
    expect(await errorOf(none)).toBe("invalid_request");
  });

  it("an expired code: the grant holding it lives 10 minutes in KV, and once KV has dropped it the code is refused", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app);
    const issuedAt = Date.now();
    const back = await codeFor(browser, flow);
    const code = back.searchParams.get("code") as string;
    const [userId, grantId] = code.split(":");
    const key = `grant:${userId}:${grantId}`;
    const listed = await env.KV.list({ prefix: key });
    const expiration = listed.keys[0]?.expiration as number;
    expect(expiration * 1000).toBeGreaterThan(issuedAt);
    expect(expiration * 1000 - issuedAt).toBeLessThanOrEqual(600_000 + 2_000);
    // What KV does at that expiration: the record is gone.
    await env.KV.delete(key);
    const res = await tokenRequest(
      { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: flow.verifier },
      { authorization: basic(app.client_id, app.client_secret as string) },
    );
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("invalid_grant");
  });

  it("a client secret sent by a public client: invalid_client; the same request without it succeeds", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser, { type: "public" });
    expect(app.client_secret).toBeNull();
    const flow = await startFlow(app);
    const back = await codeFor(browser, flow);
    const form = {
      grant_type: "authorization_code",
      code: back.searchParams.get("code") as string,
      redirect_uri: REDIRECT,
      code_verifier: flow.verifier,
      client_id: app.client_id,
    };
    const withSecret = await tokenRequest({ ...form, client_secret: "made-up" });
    expect(withSecret.status).toBe(401);
    expect(await errorOf(withSecret)).toBe("invalid_client");
    const { client_id: _id, ...withoutId } = form;
    const basicSecret = await tokenRequest(withoutId, { authorization: basic(app.client_id, "made-up") });
    expect(basicSecret.status).toBe(401);
    expect(await errorOf(basicSecret)).toBe("invalid_client");
    const ok = await tokenRequest(form);
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(((await ok.json()) as { id_token?: string }).id_token).toBeTypeOf("string");
  });
});

describe("userinfo refused", () => {
  it("an ID token, a session token, no token, and a token whose app was revoked", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const other = await registerClient(browser, { name: "Other app" });
    const flow = await startFlow(app);
    const tokens = await exchange(flow, await codeFor(browser, flow));
    const otherFlow = await startFlow(other);
    const otherTokens = await exchange(otherFlow, await codeFor(browser, otherFlow));
    for (const token of [tokens.id_token as string, browser.cookie as string, "not-a-token"]) {
      const res = await userinfo(token);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    expect((await userinfo(otherTokens.access_token)).status).toBe(200);
    // The app revoked by its owner: its tokens stop at once; the other app's do not.
    expect((await browser.fetch(`/api/oidc/clients/${app.client_id}`, { method: "DELETE" })).status).toBe(200);
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    expect((await userinfo(otherTokens.access_token)).status).toBe(200);
    // And it can no longer start a sign-in.
    const { res } = await authorize(browser, (await startFlow(app)).params);
    expect(res.status).toBe(400);
  });
});

describe("without ID_TOKEN_SIGNING_KEY", () => {
  it("answers 503: oidc_not_configured for the documents and app registration, a page for authorization", async () => {
    const { app } = await import("../../workers/auth/src/app");
    const { createExecutionContext } = await import("cloudflare:test");
    const unset = { ...env, ID_TOKEN_SIGNING_KEY: undefined };
    const call = (path: string, init: RequestInit = {}) =>
      app.fetch(new Request(`http://localhost:8787${path}`, init), unset, createExecutionContext());
    for (const path of ["/.well-known/openid-configuration", "/oauth/jwks"]) {
      const res = await call(path);
      expect(res.status, path).toBe(503);
      expect(((await res.json()) as { reason: string }).reason, path).toBe("oidc_not_configured");
    }
    const { browser } = await signedInBrowser();
    const register = await call("/api/oidc/clients", {
      method: "POST",
      headers: {
        cookie: `oc_session=${browser.cookie}`,
        "content-type": "application/json",
        "sec-fetch-site": "same-origin",
        "cf-connecting-ip": browser.ip,
      },
      body: JSON.stringify({ name: "x", redirect_uris: [REDIRECT], type: "public" }),
    });
    expect(register.status).toBe(503);
    expect(((await register.json()) as { reason: string }).reason).toBe("oidc_not_configured");
    const page = await call("/oauth/authorize?client_id=x");
    expect(page.status).toBe(503);
    expect(await page.text()).toContain("not set up as an OpenID provider");
    const token = await call("/oauth/token", { method: "POST", body: "grant_type=authorization_code" });
    expect(token.status).toBe(503);
  });
});

describe("consent answers refused", () => {
  it("from another site, without the page's binding cookie, twice, or for another account than the page showed", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app);
    const page = await authorize(browser, flow.params);
    const fields = consentForm(await page.res.clone().text());
    const post = (cookie: string, site = "same-origin", extra: Record<string, string> = {}) =>
      browser.fetch("/oauth/consent", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, "sec-fetch-site": site },
        body: new URLSearchParams({ ...fields, decision: "allow", ...extra }).toString(),
      });
    const session = `oc_session=${browser.cookie}`;
    const withBinding = [session, ...page.cookies].join("; ");
    expect((await post(withBinding, "cross-site")).status).toBe(400);
    expect((await post(session)).status).toBe(400); // no binding cookie: not this browser's form
    expect((await post(withBinding, "same-origin", { account: "did:oc:someone-else" })).status).toBe(401);
    const allowed = await post(withBinding);
    expect(allowed.status).toBe(302);
    expect(locationOf(allowed).searchParams.get("code")).toBeTruthy();
    const again = await post(withBinding);
    expect(again.status).toBe(400); // the handle works once
    expect(await again.text()).toContain("Start again from the app");
  });
});
