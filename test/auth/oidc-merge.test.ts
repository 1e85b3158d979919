// A merge and the OpenID provider (issue 44, item 1): the absorbed account's grants end (its tokens stop at userinfo
// and at the token endpoint), its registered apps and its allowances move to the surviving account (the scopes of
// an app both allowed are merged), and the survivor's own tokens keep working.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signedInBrowser } from "../helpers/account-security";
import { Browser } from "../helpers/browser";
import { codeFor, exchange, refreshWith, registerClient, startFlow, userinfo } from "../helpers/oidc";

async function listed<T>(browser: Browser, path: string, key: string): Promise<T[]> {
  const res = await browser.fetch(path);
  expect(res.status).toBe(200);
  return ((await res.json()) as Record<string, T[]>)[key] as T[];
}

describe("a merge ends the absorbed account's grants and moves its apps and allowances", () => {
  it("A's tokens stop; B lists A's app and A's allowance, scopes merged with its own", async () => {
    const browser = new Browser();
    const a = await signedInBrowser("p2wpkh", browser);
    const app = await registerClient(browser, { name: "A's app" });
    const onA = await startFlow(app, "openid profile offline_access");
    const aTokens = await exchange(onA, await codeFor(browser, onA));
    expect((await userinfo(aTokens.access_token)).status).toBe(200);
    await signedInBrowser("p2tr", browser); // B, now active in the same browser
    const onB = await startFlow(app, "openid email offline_access");
    const bTokens = await exchange(onB, await codeFor(browser, onB));

    const merged = await browser.post("/api/auth/account/merge", { did_oc: a.account.did_oc });
    expect(merged.status, await merged.clone().text()).toBe(200);

    const info = await userinfo(aTokens.access_token);
    expect(info.status).toBe(401);
    expect(((await info.json()) as { error: string }).error).toBe("invalid_token");
    expect((await refreshWith(app, aTokens.refresh_token as string)).body.error).toBe("invalid_grant");
    // B's own grant lives on.
    expect((await userinfo(bTokens.access_token)).status).toBe(200);
    expect((await refreshWith(app, bTokens.refresh_token as string)).status).toBe(200);

    const clients = await listed<{ client_id: string }>(browser, "/api/oidc/clients", "clients");
    expect(clients.map((c) => c.client_id)).toEqual([app.client_id]);
    const consents = await listed<{ client_id: string; scopes: string[] }>(browser, "/api/oidc/consents", "consents");
    expect(consents.map((c) => c.client_id)).toEqual([app.client_id]);
    expect([...(consents[0]?.scopes ?? [])].sort()).toEqual(["email", "offline_access", "openid", "profile"]);
  });

  it("a code A was given before the merge is refused after it", async () => {
    const browser = new Browser();
    const a = await signedInBrowser("p2wpkh", browser);
    const app = await registerClient(browser);
    const flow = await startFlow(app, "openid");
    const back = await codeFor(browser, flow);
    await signedInBrowser("p2tr", browser);
    expect((await browser.post("/api/auth/account/merge", { did_oc: a.account.did_oc })).status).toBe(200);
    await expect(exchange(flow, back)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("a merged account's row answers for nothing, even where the library still holds its grant", async () => {
    const { browser } = await signedInBrowser();
    const app = await registerClient(browser);
    const flow = await startFlow(app, "openid offline_access");
    const tokens = await exchange(flow, await codeFor(browser, flow));
    const survivor = await signedInBrowser();
    // The row marked as a merge marks it, with nothing else moved and the grant still in KV (a revocation cut short).
    const accountId = tokens.access_token.split(":")[0] as string;
    await env.DB.prepare("UPDATE accounts SET merged_into = (SELECT id FROM accounts WHERE did_oc = ?) WHERE id = ?")
      .bind(survivor.account.did_oc, accountId)
      .run();
    const info = await userinfo(tokens.access_token);
    expect(info.status).toBe(401);
    expect(((await info.json()) as { error: string }).error).toBe("invalid_token");
    expect((await refreshWith(app, tokens.refresh_token as string)).body.error).toBe("invalid_grant");
  });
});
