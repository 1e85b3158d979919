// Linked identities (issue 27, part 1): one account holds several Bitcoin addresses (all four types); linking
// proves the address over a challenge of purpose `link` and needs a fresh sudo_at; signing in with any linked
// address reaches the same did_oc; an address on another account, or already here, is refused; the last identity
// and the primary address cannot be unlinked; primary_btc changes only by an explicit choice among the linked
// addresses; every change leaves a line in the account log.
import { describe, expect, it } from "vitest";
import {
  accountLogOf,
  claims,
  makeStale,
  p2shWallet,
  proof,
  reasonOf,
  signedInBrowser,
} from "../helpers/account-security";
import { type AccountBody, Browser } from "../helpers/browser";
import { newWallet } from "../helpers/wallet";

type Identity = { kind: string; value: string; primary: boolean };

async function identities(browser: Browser): Promise<Identity[]> {
  const res = await browser.fetch("/api/auth/identities");
  expect(res.status).toBe(200);
  return ((await res.json()) as { identities: Identity[] }).identities;
}

describe("linking Bitcoin addresses", () => {
  it("links one address of each type; signing in with any of them reaches the same did_oc", async () => {
    const { browser, account } = await signedInBrowser("p2wpkh");
    const others = [newWallet("p2tr"), newWallet("p2pkh"), p2shWallet()];
    for (const wallet of others) {
      const res = await browser.post("/api/auth/identities/btc", await proof(browser, wallet, "link"));
      expect(res.status, await res.clone().text()).toBe(200);
    }
    const linked = await identities(browser);
    expect(linked.map((i) => i.value)).toEqual([account.primary_btc, ...others.map((w) => w.address)]);
    // Linking changes nothing about primary_btc: only the first address is primary.
    expect(linked.map((i) => i.primary)).toEqual([true, false, false, false]);
    for (const wallet of others) {
      const res = await new Browser().signIn(wallet);
      const signedIn = ((await res.json()) as { account: AccountBody }).account;
      expect(signedIn.did_oc).toBe(account.did_oc);
      expect(signedIn.primary_btc).toBe(account.primary_btc);
    }
  });

  it("needs a fresh sudo_at: eleven minutes after sign-in it is 403 sudo_required, and nothing is linked", async () => {
    const { browser } = await signedInBrowser();
    await makeStale(browser);
    const res = await browser.post("/api/auth/identities/btc", await proof(browser, newWallet(), "link"));
    expect(res.status).toBe(403);
    expect(await reasonOf(res)).toBe("sudo_required");
    expect(await identities(browser)).toHaveLength(1);
  });

  it("a challenge of another purpose does not link (a sign-in challenge signed by a phished wallet)", async () => {
    const { browser } = await signedInBrowser();
    const res = await browser.post("/api/auth/identities/btc", await proof(browser, newWallet(), "login"));
    expect(await reasonOf(res)).toBe("challenge_purpose_mismatch");
  });

  it("refuses an address already here (409 identity_already_linked) or on another account (409 identity_on_other_account)", async () => {
    const { browser, wallet } = await signedInBrowser();
    const again = await browser.post("/api/auth/identities/btc", await proof(browser, wallet, "link"));
    expect(await reasonOf(again)).toBe("identity_already_linked");
    const other = await signedInBrowser();
    const taken = await browser.post("/api/auth/identities/btc", await proof(browser, other.wallet, "link"));
    expect(taken.status).toBe(409);
    expect(await reasonOf(taken)).toBe("identity_on_other_account");
    // The other account still signs in by it, as itself.
    const res = await new Browser().signIn(other.wallet);
    expect(((await res.json()) as { account: AccountBody }).account.did_oc).toBe(other.account.did_oc);
  });
});

describe("unlinking and the primary address", () => {
  it("never the last identity, never the primary address; another one, yes", async () => {
    const { browser, wallet } = await signedInBrowser();
    const own = encodeURIComponent(wallet.address);
    const last = await browser.fetch(`/api/auth/identities/btc/${own}`, { method: "DELETE" });
    expect(last.status).toBe(409);
    // Both rules hold here; the primary address is named first.
    expect(await reasonOf(last)).toBe("identity_is_primary");
    const second = newWallet("p2tr");
    await browser.post("/api/auth/identities/btc", await proof(browser, second, "link"));
    expect(await reasonOf(await browser.fetch(`/api/auth/identities/btc/${own}`, { method: "DELETE" }))).toBe(
      "identity_is_primary",
    );
    // Choose the second as primary (the cookie follows), then the first may go.
    const chosen = await browser.post("/api/auth/account/primary-btc", { address: second.address });
    expect(chosen.status).toBe(200);
    expect(claims(browser).primary_btc).toBe(second.address);
    expect((await browser.fetch(`/api/auth/identities/btc/${own}`, { method: "DELETE" })).status).toBe(200);
    // Now the second is the last way in.
    const remaining = encodeURIComponent(second.address);
    await browser.post("/api/auth/account/primary-btc", { address: null });
    expect(claims(browser).primary_btc).toBeNull();
    const lastOne = await browser.fetch(`/api/auth/identities/btc/${remaining}`, { method: "DELETE" });
    expect(await reasonOf(lastOne)).toBe("last_identity");
    // Unlinked, the first address signs in as a new account.
    const res = await new Browser().signIn(wallet);
    expect(((await res.json()) as { account: AccountBody }).account.did_oc).not.toBe(claims(browser).did_oc);
  });

  it("primary_btc is only ever a linked address, and choosing needs a fresh sudo_at", async () => {
    const { browser } = await signedInBrowser();
    const stranger = newWallet();
    const refused = await browser.post("/api/auth/account/primary-btc", { address: stranger.address });
    expect(await reasonOf(refused)).toBe("identity_not_linked");
    const unknown = await browser.fetch(`/api/auth/identities/email/${encodeURIComponent("a@example.com")}`, {
      method: "DELETE",
    });
    expect(await reasonOf(unknown)).toBe("identity_not_linked");
    await makeStale(browser);
    expect(await reasonOf(await browser.post("/api/auth/account/primary-btc", { address: null }))).toBe(
      "sudo_required",
    );
    const unlink = await browser.fetch(`/api/auth/identities/btc/${stranger.address}`, { method: "DELETE" });
    expect(await reasonOf(unlink)).toBe("sudo_required");
  });

  it("leaves a line for each change in the account log, naming the session, never a signature", async () => {
    const { browser, wallet } = await signedInBrowser();
    const second = newWallet();
    const linkBody = await proof(browser, second, "link");
    await browser.post("/api/auth/identities/btc", linkBody);
    await browser.post("/api/auth/account/primary-btc", { address: second.address });
    await browser.fetch(`/api/auth/identities/btc/${wallet.address}`, { method: "DELETE" });
    // A refused change logs nothing.
    await browser.fetch(`/api/auth/identities/btc/${second.address}`, { method: "DELETE" });
    const log = await accountLogOf(browser);
    expect(log.map((e) => e.event_type)).toEqual(["identity.unlinked", "primary_btc.changed", "identity.linked"]);
    expect(log[2]?.detail).toEqual({ kind: "btc", value: second.address });
    const res = await browser.fetch("/api/auth/account/log");
    const text = await res.text();
    expect(text).not.toContain(linkBody.signature);
    expect((JSON.parse(text) as { events: { this_session: boolean }[] }).events.every((e) => e.this_session)).toBe(
      true,
    );
  });
});
