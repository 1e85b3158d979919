// The sign-in round trip of an authorization request (review 3, item 2): prompt=login and max_age ask for a sign-in
// newer than the request, and only the resume marker this host MACed, for that very query and not yet stale, says
// when the request began. A plain `oc_after` on the query, or a marker the browser wrote itself, changes nothing:
// the request is fresh and the browser is sent to sign in again (OpenID Connect Core 3.1.2.1).
import { base64url } from "jose";
import { describe, expect, it } from "vitest";
import { makeStale, signedInBrowser } from "../helpers/account-security";
import { authorize, codeFor, exchange, locationOf, registerClient, startFlow } from "../helpers/oidc";

/** A browser whose sign-in is eleven minutes old, with an app it allowed already (no consent page in the way). */
async function staleWithApp() {
  const signedIn = await signedInBrowser();
  const app = await registerClient(signedIn.browser);
  const allowed = await startFlow(app, "openid");
  await exchange(allowed, await codeFor(signedIn.browser, allowed));
  await makeStale(signedIn.browser);
  return { ...signedIn, app };
}

/** The answer must be the sign-in page (with a resume marker of this host's), never a code for the app. */
function expectSignIn(res: Response) {
  expect(res.status).toBe(302);
  const to = locationOf(res);
  expect(to.searchParams.get("code")).toBeNull();
  expect(to.pathname).toBe("/signin");
  expect(to.searchParams.get("return_to")).toMatch(/^\/oauth\/authorize\?oc_resume=[A-Za-z0-9_-]+$/);
}

describe("prompt=login and max_age cannot be skipped by the request's own marker", () => {
  it("a plain oc_after on the query is ignored", async () => {
    const { browser, app } = await staleWithApp();
    for (const extra of [
      { max_age: "0", oc_after: "0" },
      { prompt: "login", oc_after: "0" },
      { max_age: "60", oc_after: String(Date.now() - 3_600_000) },
    ] as Record<string, string>[]) {
      const flow = await startFlow(app, "openid", extra);
      expectSignIn((await authorize(browser, flow.params)).res);
    }
  });

  it("an oc_resume the browser wrote itself (unsigned, or with a made-up MAC) is a fresh request", async () => {
    const { browser, app } = await staleWithApp();
    for (const extra of [{ max_age: "0" }, { prompt: "login" }] as Record<string, string>[]) {
      const flow = await startFlow(app, "openid", extra);
      const carried = new URLSearchParams({ ...flow.params, oc_after: "0" }).toString();
      for (const forged of [carried, `${carried}&oc_mac=${"A".repeat(43)}`]) {
        const res = await browser.fetch(`/oauth/authorize?oc_resume=${base64url.encode(forged)}`);
        expectSignIn(res);
      }
    }
  });

  it("a marker this host issued for one request does not carry over to another", async () => {
    const { browser, app, wallet } = await staleWithApp();
    const first = await startFlow(app, "openid", { prompt: "login" });
    const issued = locationOf((await authorize(browser, first.params)).res).searchParams.get("return_to") as string;
    const text = new TextDecoder().decode(
      base64url.decode(new URL(issued, "http://x").searchParams.get("oc_resume") ?? ""),
    );
    // Another request (its own state and code challenge) under the first one's MAC.
    const other = await startFlow(app, "openid", { prompt: "login" });
    const moved = text
      .replace(`state=${first.state}`, `state=${other.state}`)
      .replace(encodeURIComponent(first.params.code_challenge as string), other.params.code_challenge as string);
    expect(moved).not.toBe(text);
    // Signed in again after the marker was issued: only the request it was issued for may use that sign-in.
    expect((await browser.signIn(wallet, { add: true })).status).toBe(200);
    expectSignIn(await browser.fetch(`/oauth/authorize?oc_resume=${base64url.encode(moved)}`));
    const genuine = await browser.fetch(issued);
    expect(genuine.status).toBe(302);
    expect(locationOf(genuine).searchParams.get("code")).toBeTruthy();
  });
});
