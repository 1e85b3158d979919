// The lives of OpenID grants (issue 44, items 3 and 9 and two write-downs): a refresh token only with offline_access,
// a retired refresh token presented again revokes its whole grant (RFC 9700 4.14.2), a second device's sign-in to an
// app leaves the first device's grant alone, and a loopback redirect URI matches on any port (RFC 8252 7.3).
import { describe, expect, it } from "vitest";
import { signedInBrowser } from "../helpers/account-security";
import {
  answerConsent,
  authorize,
  codeFor,
  exchange,
  locationOf,
  refreshWith,
  registerClient,
  startFlow,
  userinfo,
} from "../helpers/oidc";

async function grantWithRefresh() {
  const { browser } = await signedInBrowser();
  const app = await registerClient(browser);
  const flow = await startFlow(app, "openid offline_access");
  const tokens = await exchange(flow, await codeFor(browser, flow));
  expect(tokens.refresh_token).toBeTypeOf("string");
  return { app, tokens: { access: tokens.access_token, refresh: tokens.refresh_token as string } };
}

/** The code for a flow whose redirect URI is not the helper's default. */
async function codeForAt(browser: Parameters<typeof authorize>[0], params: Record<string, string>, redirect: string) {
  const page = await authorize(browser, params);
  const res = page.res.status === 200 ? await answerConsent(browser, page) : page.res;
  expect(res.status, await res.clone().text()).toBe(302);
  const back = locationOf(res);
  expect(`${back.origin}${back.pathname}`).toBe(redirect);
  return back;
}

describe("refresh tokens only with offline_access", () => {
  it("a grant without offline_access gets no refresh token; with it, one", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const plain = await startFlow(app, "openid profile");
    const without = await exchange(plain, await codeFor(browser, plain));
    expect(without.refresh_token).toBeUndefined();
    expect((await userinfo(without.access_token)).status).toBe(200);
    const offline = await startFlow(app, "openid profile offline_access");
    const withIt = await exchange(offline, await codeFor(browser, offline));
    expect(withIt.refresh_token).toBeTypeOf("string");
  });
});

describe("a retired refresh token presented again revokes the grant", () => {
  it("R0 → R1 → R2, then R0: invalid_grant, and R2 and every access token of the grant stop", async () => {
    const { app, tokens } = await grantWithRefresh();
    const first = await refreshWith(app, tokens.refresh);
    expect(first.status).toBe(200);
    const second = await refreshWith(app, first.body.refresh_token as string);
    expect(second.status).toBe(200);
    const replay = await refreshWith(app, tokens.refresh);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    const latest = await refreshWith(app, second.body.refresh_token as string);
    expect(latest.body.error).toBe("invalid_grant");
    for (const access of [tokens.access, first.body.access_token, second.body.access_token]) {
      expect((await userinfo(access as string)).status).toBe(401);
    }
  });

  it("R0 → R1, then R0 again before R1 is used (the library's grace): invalid_grant, and R1 stops too", async () => {
    const { app, tokens } = await grantWithRefresh();
    const first = await refreshWith(app, tokens.refresh);
    expect(first.status).toBe(200);
    const replay = await refreshWith(app, tokens.refresh);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    expect((await refreshWith(app, first.body.refresh_token as string)).body.error).toBe("invalid_grant");
    expect((await userinfo(first.body.access_token as string)).status).toBe(401);
  });

  it("a refresh token that was never issued is refused without touching the grant", async () => {
    const { app, tokens } = await grantWithRefresh();
    const [userId, grantId] = tokens.refresh.split(":");
    const forged = `${userId}:${grantId}:${"x".repeat(32)}`;
    for (let i = 0; i < 2; i++) expect((await refreshWith(app, forged)).body.error).toBe("invalid_grant");
    expect((await refreshWith(app, tokens.refresh)).status).toBe(200);
  });
});

describe("one grant per device", () => {
  it("a second authorization of the same app by the same account leaves the first grant's tokens working", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const phone = await startFlow(app, "openid offline_access");
    const onPhone = await exchange(phone, await codeFor(browser, phone));
    const laptop = await startFlow(app, "openid offline_access");
    const onLaptop = await exchange(laptop, await codeFor(browser, laptop));
    expect((await userinfo(onPhone.access_token)).status).toBe(200);
    expect((await userinfo(onLaptop.access_token)).status).toBe(200);
    expect((await refreshWith(app, onPhone.refresh_token as string)).status).toBe(200);
    // Taking the allowance back ends both.
    expect((await browser.fetch(`/api/oidc/consents/${app.client_id}`, { method: "DELETE" })).status).toBe(200);
    expect((await userinfo(onLaptop.access_token)).status).toBe(401);
    expect((await refreshWith(app, onLaptop.refresh_token as string)).body.error).toBe("invalid_grant");
  });
});

describe("loopback redirect URIs (RFC 8252 7.3)", () => {
  it("match on any port, never on another host, path or query", async () => {
    const { browser } = await signedInBrowser();
    const registered = "http://127.0.0.1:8080/callback";
    const app = await registerClient(browser, { type: "public", redirect_uris: [registered] });
    const other = "http://127.0.0.1:9999/callback";
    const flow = await startFlow(app, "openid", { redirect_uri: other });
    const back = await codeForAt(browser, flow.params, other);
    expect(back.searchParams.get("code")).toBeTruthy();
    for (const refused of ["http://127.0.0.1:8080/other", "http://127.0.0.2:8080/callback", `${registered}?x=1`]) {
      const { res } = await authorize(browser, { ...flow.params, redirect_uri: refused });
      expect(res.status, refused).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    }
  });
});
