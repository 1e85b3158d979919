// Re-authentication (issue 27, part 4): a fresh proof of one of the active account's own identities refreshes its
// sudo_at in the row and in the re-issued cookie; a proof for another account counts for nothing; a stolen roster
// cookie can switch accounts but do no sensitive operation on any of them; a provider round trip links an identity
// and re-authenticates; merging needs both accounts freshly proven in this browser; one roster account signs out
// alone; the log records each change.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  accountLogOf,
  claims,
  makeStale,
  proof,
  reasonOf,
  sessionId,
  signedInBrowser,
} from "../helpers/account-security";
import { type AccountBody, Browser } from "../helpers/browser";
import { staleSudo } from "../helpers/email-code";
import { ProviderBrowser } from "../helpers/provider-browser";
import { newWallet } from "../helpers/wallet";

const secondsNow = () => Math.floor(Date.now() / 1000);

describe("re-authentication with a Bitcoin address", () => {
  it("refreshes sudo_at in the row and the re-issued cookie; the sensitive operation then passes", async () => {
    const { browser, wallet } = await signedInBrowser();
    await makeStale(browser);
    const before = await browser.fetch("/api/auth/freshness");
    expect(((await before.json()) as { freshness: { sudo_fresh_until: string | null } }).freshness).toMatchObject({
      sudo_fresh_until: null,
    });
    expect(await reasonOf(await browser.post("/api/auth/account/primary-btc", { address: null }))).toBe(
      "sudo_required",
    );
    const res = await browser.post("/api/auth/reauth/btc", await proof(browser, wallet, "reauth"));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(Math.abs((claims(browser).sudo_at as number) - secondsNow())).toBeLessThanOrEqual(2);
    expect(claims(browser).step_up_at).toBeNull();
    const after = (await (await browser.fetch("/api/auth/freshness")).json()) as {
      freshness: { sudo_fresh_until: string | null };
    };
    expect(after.freshness.sudo_fresh_until).not.toBeNull();
    expect((await browser.post("/api/auth/account/primary-btc", { address: wallet.address })).status).toBe(200);
    expect((await accountLogOf(browser)).map((e) => e.event_type)).toEqual(["primary_btc.changed", "reauthenticated"]);
  });

  it("only the active account's own identity counts; a sign-in challenge does not re-authenticate", async () => {
    const { browser } = await signedInBrowser();
    await makeStale(browser);
    const stranger = newWallet();
    const other = await browser.post("/api/auth/reauth/btc", await proof(browser, stranger, "reauth"));
    expect(await reasonOf(other)).toBe("identity_not_linked");
    const wrongPurpose = await browser.post("/api/auth/reauth/btc", await proof(browser, stranger, "login"));
    expect(await reasonOf(wrongPurpose)).toBe("challenge_purpose_mismatch");
    const anonymous = await new Browser().post("/api/auth/reauth/btc", await proof(browser, stranger, "reauth"));
    expect(await reasonOf(anonymous)).toBe("not_authenticated");
  });
});

describe("a cookie stolen from a roster", () => {
  it("switches between the roster's accounts but can do no sensitive operation on any of them", async () => {
    const victim = new Browser();
    const a = await signedInBrowser("p2wpkh", victim);
    const b = await signedInBrowser("p2tr", victim);
    // Both sign-ins are over ten minutes old when the cookie is taken.
    await makeStale(victim);
    await staleSudo(a.account.did_oc);
    const thief = new Browser();
    thief.cookie = victim.cookie;
    expect((await thief.post("/api/auth/switch", { did_oc: a.account.did_oc })).status).toBe(200);
    for (const account of [a, b]) {
      if (claims(thief).did_oc !== account.account.did_oc) {
        expect((await thief.post("/api/auth/switch", { did_oc: account.account.did_oc })).status).toBe(200);
      }
      const attempts = [
        thief.post("/api/auth/identities/btc", await proof(thief, newWallet(), "link")),
        thief.fetch(`/api/auth/identities/btc/${account.wallet.address}`, { method: "DELETE" }),
        thief.post("/api/auth/account/primary-btc", { address: null }),
        thief.post("/api/auth/account/merge", { did_oc: (account === a ? b : a).account.did_oc }),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.status).toBe(403);
        expect(await reasonOf(res)).toBe("sudo_required");
      }
      // Its own wallet is what a re-authentication would need, and the thief has none of them.
      const forged = await thief.post("/api/auth/reauth/btc", await proof(thief, newWallet(), "reauth"));
      expect(await reasonOf(forged)).toBe("identity_not_linked");
    }
    expect((await accountLogOf(thief)).map((e) => e.event_type)).toEqual([]);
  });
});

describe("merging two accounts of this browser", () => {
  it("needs both freshly proven; moves the identities; merged_from names the absorbed account", async () => {
    const browser = new Browser();
    const a = await signedInBrowser("p2wpkh", browser);
    const b = await signedInBrowser("p2tr", browser);
    expect(claims(browser).did_oc).toBe(b.account.did_oc);
    expect(await reasonOf(await browser.post("/api/auth/account/merge", { did_oc: b.account.did_oc }))).toBe(
      "merge_same_account",
    );
    const stranger = await signedInBrowser();
    expect(await reasonOf(await browser.post("/api/auth/account/merge", { did_oc: stranger.account.did_oc }))).toBe(
      "not_in_roster",
    );
    // A's proof is stale: confirm it first (the detail says which account).
    await staleSudo(a.account.did_oc);
    const stale = await browser.post("/api/auth/account/merge", { did_oc: a.account.did_oc });
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as { reason: string; detail: string }).detail).toContain(a.account.did_oc);
    await browser.signIn(a.wallet, { add: true }); // a re-sign-in in the roster is a fresh proof of A
    await browser.post("/api/auth/switch", { did_oc: b.account.did_oc });
    const merged = await browser.post("/api/auth/account/merge", { did_oc: a.account.did_oc });
    expect(merged.status, await merged.clone().text()).toBe(200);
    expect(claims(browser).merged_from).toEqual([a.account.did_oc]);
    expect(claims(browser).primary_btc).toBe(b.account.primary_btc);
    const res = await new Browser().signIn(a.wallet);
    expect(((await res.json()) as { account: AccountBody }).account.did_oc).toBe(b.account.did_oc);
    const me = await browser.me();
    expect(me.body.roster.map((r) => r.did_oc)).not.toContain(a.account.did_oc);
    expect((await accountLogOf(browser)).map((e) => e.event_type)).toContain("account.merged");
  });
});

describe("the roster's sessions", () => {
  it("signs one other account out and leaves the active one", async () => {
    const browser = new Browser();
    const a = await signedInBrowser("p2wpkh", browser);
    const b = await signedInBrowser("p2tr", browser);
    expect(await reasonOf(await browser.post("/api/auth/roster/signout", { did_oc: b.account.did_oc }))).toBe(
      "already_active",
    );
    expect((await browser.post("/api/auth/roster/signout", { did_oc: a.account.did_oc })).status).toBe(200);
    const me = await browser.me();
    expect(me.body.account.did_oc).toBe(b.account.did_oc);
    expect(me.body.roster).toEqual([]);
    expect(await reasonOf(await browser.post("/api/auth/roster/signout", { did_oc: a.account.did_oc }))).toBe(
      "not_in_roster",
    );
  });
});

describe("a provider round trip for the signed-in account", () => {
  it("links the provider identity (with a fresh sudo_at), then re-authenticates with it", async () => {
    const { browser } = await signedInBrowser();
    const provider = new ProviderBrowser({});
    provider.session = browser.cookie;
    const back = await provider.callback(await consentFor(provider, "/api/auth/oidc/start?intent=link"));
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toBe("/account?done=link");
    browser.cookie = provider.session;
    const listed = (await (await browser.fetch("/api/auth/identities")).json()) as { identities: { kind: string }[] };
    expect(listed.identities.map((i) => i.kind)).toContain(`oidc:${env.OIDC_ISSUER}`);
    // Stale now: the provider proves the account's own identity again.
    await makeStale(browser);
    provider.session = browser.cookie;
    const again = await provider.callback(await consentFor(provider, "/api/auth/oidc/start?intent=reauth"));
    expect(again.headers.get("location")).toBe("/account?done=reauth");
    browser.cookie = provider.session;
    expect(Math.abs((claims(browser).sudo_at as number) - secondsNow())).toBeLessThanOrEqual(2);
    // Linking by a stale session is refused at the start, before any round trip.
    await makeStale(browser);
    provider.session = browser.cookie;
    const refused = await provider.fetch("/api/auth/oidc/start?intent=link");
    expect(await reasonOf(refused)).toBe("sudo_required");
    // The callback acts only for the session that started it: after a sign-out, it changes nothing.
    const id = await sessionId(browser);
    const started = await consentFor(provider, "/api/auth/oidc/start?intent=reauth");
    await env.DB.prepare("DELETE FROM sessions WHERE id = ?").bind(id).run();
    const gone = await provider.callback(started);
    expect(gone.headers.get("location")).toBe("/account?error=not_authenticated");
  });
});

async function consentFor(provider: ProviderBrowser, path: string): Promise<URL> {
  const started = await provider.fetch(path);
  expect(started.status, await started.clone().text()).toBe(302);
  const back = await fetch(started.headers.get("location") ?? "", { redirect: "manual" });
  return new URL(back.headers.get("location") ?? "");
}
