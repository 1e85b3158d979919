// PATCH /api/auth/account: display name and display identity of the active account.
import { describe, expect, it } from "vitest";
import { type AccountBody, Browser } from "../helpers/browser";
import { decodePart } from "../helpers/tokens";
import { newWallet } from "../helpers/wallet";

async function patch(browser: Browser, json: unknown) {
  const res = await browser.fetch("/api/auth/account", { method: "PATCH", json });
  return { status: res.status, body: (await res.json()) as { ok: boolean; reason?: string; account: AccountBody } };
}

describe("PATCH /api/auth/account", () => {
  it("changes the display name and re-mints the cookie with it", async () => {
    const browser = new Browser();
    await browser.signIn(newWallet());
    const before = browser.cookie;
    const res = await patch(browser, { display_name: "  Satoshi  " });
    expect(res.status).toBe(200);
    expect(res.body.account.display_name).toBe("Satoshi");
    expect(browser.cookie).not.toBe(before);
    expect(decodePart(browser.cookie as string, 1).display_name).toBe("Satoshi");
    expect((await browser.me()).body.account.display_name).toBe("Satoshi");
    const cleared = await patch(browser, { display_name: null });
    expect(cleared.body.account.display_name).toBeNull();
  });

  it("switches the display identity between btc and did", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    await browser.signIn(wallet);
    const did = await patch(browser, { display_identity: "did" });
    expect(did.body.account.display_identity).toEqual({ kind: "did", value: did.body.account.did_oc });
    const btc = await patch(browser, { display_identity: "btc" });
    expect(btc.body.account.display_identity).toEqual({ kind: "btc", value: wallet.address });
  });

  it("refuses an identity the account does not have (409 identity_not_linked)", async () => {
    const browser = new Browser();
    await browser.signIn(newWallet());
    const res = await patch(browser, { display_identity: "email" });
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe("identity_not_linked");
  });

  it("answers no_fields_to_update, invalid_body and not_authenticated", async () => {
    const anonymous = await patch(new Browser(), { display_name: "x" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.reason).toBe("not_authenticated");
    const browser = new Browser();
    await browser.signIn(newWallet());
    expect((await patch(browser, {})).body.reason).toBe("no_fields_to_update");
    for (const body of [
      { display_identity: "nostr" },
      { display_name: "x".repeat(65) },
      { display_name: "a\nb" },
      { role: "owner" },
    ]) {
      const res = await patch(browser, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.reason).toBe("invalid_body");
    }
  });
});
