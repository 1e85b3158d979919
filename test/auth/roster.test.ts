// The browser-session state table of service-spec.md, row by row, and the switch errors.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type AccountBody, Browser } from "../helpers/browser";
import { accountRow, decodePart, legacySession, sessionRows } from "../helpers/tokens";
import { newWallet } from "../helpers/wallet";

async function signedIn(browser: Browser, options: { add?: boolean } = {}) {
  const res = await browser.signIn(newWallet(), options);
  expect(res.status).toBe(200);
  return ((await res.json()) as { account: AccountBody }).account;
}

async function reason(res: Response) {
  return ((await res.json()) as { reason?: string }).reason;
}

describe("browser session states", () => {
  it("anonymous → sign-in: one account active, a roster of one with a fresh roster_id", async () => {
    const browser = new Browser();
    const a = await signedIn(browser);
    const rows = await sessionRows(a.did_oc);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.roster_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(rows[0]?.expires_at).toBe((rows[0]?.created_at ?? 0) + 30 * 24 * 3600 * 1000);
    expect((await browser.me()).body.roster).toEqual([]);
  });

  it("active A → sign-in with add=1: A and B in the roster, B active, A's row alive", async () => {
    const browser = new Browser();
    const a = await signedIn(browser);
    const aCookie = browser.cookie;
    const b = await signedIn(browser, { add: true });
    const me = await browser.me();
    expect(me.body.account.did_oc).toBe(b.did_oc);
    expect(me.body.roster.map((r) => r.did_oc)).toEqual([a.did_oc]);
    expect(me.body.roster[0]?.last_seen_at).toMatch(/Z$/);
    const [aRow] = await sessionRows(a.did_oc);
    const [bRow] = await sessionRows(b.did_oc);
    expect(aRow?.roster_id).toBe(bRow?.roster_id);
    // A's own token is still live (its row was not touched).
    const asA = new Browser();
    asA.cookie = aCookie;
    expect((await asA.me()).body.account.did_oc).toBe(a.did_oc);
  });

  it("the add flag also works as a body field", async () => {
    const browser = new Browser();
    await signedIn(browser);
    const wallet = newWallet();
    const { message, nonce } = await browser.challenge(wallet.address);
    const res = await browser.post("/api/auth/signin", {
      address: wallet.address,
      message,
      signature: wallet.sign(message),
      expectedNonce: nonce,
      add: true,
    });
    expect(res.status).toBe(200);
    expect((await browser.me()).body.roster).toHaveLength(1);
  });

  it("a second sign-in to an account already in the roster re-authenticates without a duplicate", async () => {
    const browser = new Browser();
    const walletA = newWallet();
    await browser.signIn(walletA);
    await signedIn(browser, { add: true });
    const again = await browser.signIn(walletA, { add: true });
    expect(again.status).toBe(200);
    const { account } = (await again.json()) as { account: AccountBody };
    expect((await sessionRows(account.did_oc)).length).toBe(1);
    const me = await browser.me();
    expect(me.body.account.did_oc).toBe(account.did_oc);
    expect(me.body.roster).toHaveLength(1);
  });

  it("sign-in without add while signed in starts a fresh roster and signs the old one out", async () => {
    const browser = new Browser();
    const a = await signedIn(browser);
    const oldCookie = browser.cookie;
    const c = await signedIn(browser);
    const me = await browser.me();
    expect(me.body.account.did_oc).toBe(c.did_oc);
    expect(me.body.roster).toEqual([]);
    expect(await sessionRows(a.did_oc)).toHaveLength(0);
    const stale = new Browser();
    stale.cookie = oldCookie;
    expect((await stale.me()).status).toBe(401);
  });

  it("refuses an add past the roster cap, leaving the roster untouched", async () => {
    const browser = new Browser();
    await signedIn(browser);
    for (let i = 1; i < 10; i++) await signedIn(browser, { add: true });
    const before = await browser.me();
    expect(before.body.roster).toHaveLength(9);
    const res = await browser.signIn(newWallet(), { add: true });
    expect(res.status).toBe(409);
    expect(await reason(res)).toBe("roster_full");
    const after = await browser.me();
    expect(after.body.account.did_oc).toBe(before.body.account.did_oc);
    expect(after.body.roster).toHaveLength(9);
  });

  it("active A → switch to B: B active with a fresh token, the other rows untouched", async () => {
    const browser = new Browser();
    const a = await signedIn(browser);
    const b = await signedIn(browser, { add: true });
    const bToken = browser.cookie as string;
    const [aRowBefore] = await sessionRows(a.did_oc);
    const res = await browser.post("/api/auth/switch", { did_oc: a.did_oc });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { account: AccountBody }).account.did_oc).toBe(a.did_oc);
    expect(browser.cookie).not.toBe(bToken);
    expect(decodePart(browser.cookie as string, 1).did_oc).toBe(a.did_oc);
    const me = await browser.me();
    expect(me.body.account.did_oc).toBe(a.did_oc);
    expect(me.body.roster.map((r) => r.did_oc)).toEqual([b.did_oc]);
    const [bRow] = await sessionRows(b.did_oc);
    expect(bRow?.expires_at).toBeGreaterThan(Date.now());
    const [aRowAfter] = await sessionRows(a.did_oc);
    expect(aRowAfter?.expires_at).toBe(aRowBefore?.expires_at);
  });

  it("logout scope=current with a larger roster promotes another account with a fresh session", async () => {
    const browser = new Browser();
    const a = await signedIn(browser);
    const b = await signedIn(browser, { add: true });
    const bToken = browser.cookie;
    const res = await browser.post("/api/auth/logout?scope=current");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, switched_to: a.did_oc });
    expect((await browser.me()).body.account.did_oc).toBe(a.did_oc);
    expect(await sessionRows(b.did_oc)).toHaveLength(0);
    const stale = new Browser();
    stale.cookie = bToken;
    expect((await stale.me()).status).toBe(401);
  });

  it("logout scope=current with a roster of one leaves the browser anonymous, cookie cleared", async () => {
    const browser = new Browser();
    await signedIn(browser);
    const res = await browser.post("/api/auth/logout?scope=current");
    expect(await res.json()).toEqual({ ok: true, switched_to: null });
    expect(res.headers.get("set-cookie")).toMatch(/^oc_session=; .*Max-Age=0/);
    expect(browser.cookie).toBeUndefined();
    expect((await browser.me()).status).toBe(401);
  });

  it("logout (default scope all) revokes every session of the roster and clears the cookie", async () => {
    const browser = new Browser();
    const a = await signedIn(browser);
    const aToken = browser.cookie;
    const b = await signedIn(browser, { add: true });
    const res = await browser.post("/api/auth/logout");
    expect(await res.json()).toEqual({ ok: true, switched_to: null });
    expect(res.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect(await sessionRows(a.did_oc)).toHaveLength(0);
    expect(await sessionRows(b.did_oc)).toHaveLength(0);
    const stale = new Browser();
    stale.cookie = aToken;
    expect((await stale.me()).status).toBe(401);
  });

  it("logout with no session still answers ok and clears the cookie; a bad scope is invalid_query", async () => {
    const browser = new Browser();
    const res = await browser.post("/api/auth/logout?scope=current");
    expect(await res.json()).toEqual({ ok: true, switched_to: null });
    const bad = await browser.post("/api/auth/logout?scope=everything");
    expect(bad.status).toBe(400);
    expect(await reason(bad)).toBe("invalid_query");
  });

  it("a row older than 30 days can no longer be switched to (403 not_in_roster)", async () => {
    const browser = new Browser();
    const a = await signedIn(browser);
    await signedIn(browser, { add: true });
    const [aRow] = await sessionRows(a.did_oc);
    await env.DB.prepare("UPDATE sessions SET created_at = ?, expires_at = ? WHERE id = ?")
      .bind(Date.now() - 31 * 86400_000, Date.now() - 86400_000, aRow?.id)
      .run();
    expect((await browser.me()).body.roster).toEqual([]);
    const res = await browser.post("/api/auth/switch", { did_oc: a.did_oc });
    expect(res.status).toBe(403);
    expect(await reason(res)).toBe("not_in_roster");
  });
});

describe("switch errors", () => {
  it("401 not_authenticated without a valid session", async () => {
    const browser = new Browser();
    const res = await browser.post("/api/auth/switch", { did_oc: `did:oc:${"a".repeat(32)}` });
    expect(res.status).toBe(401);
    expect(await reason(res)).toBe("not_authenticated");
    browser.cookie = "not.a.jwt";
    const forged = await browser.post("/api/auth/switch", { did_oc: `did:oc:${"a".repeat(32)}` });
    expect(await reason(forged)).toBe("not_authenticated");
  });

  it("403 not_in_roster for an account of another browser", async () => {
    const mine = new Browser();
    await signedIn(mine);
    const theirs = await signedIn(new Browser());
    const res = await mine.post("/api/auth/switch", { did_oc: theirs.did_oc });
    expect(res.status).toBe(403);
    expect(await reason(res)).toBe("not_in_roster");
  });

  it("404 unknown_did_oc for an account that does not exist", async () => {
    const browser = new Browser();
    await signedIn(browser);
    const res = await browser.post("/api/auth/switch", { did_oc: `did:oc:${"0".repeat(32)}` });
    expect(res.status).toBe(404);
    expect(await reason(res)).toBe("unknown_did_oc");
  });

  it("409 no_roster for a legacy single session", async () => {
    const other = await signedIn(new Browser());
    const legacy = await signedIn(new Browser());
    const browser = new Browser();
    browser.cookie = await legacySession(await accountRow(legacy.did_oc));
    expect((await browser.me()).status).toBe(200);
    const res = await browser.post("/api/auth/switch", { did_oc: other.did_oc });
    expect(res.status).toBe(409);
    expect(await reason(res)).toBe("no_roster");
  });

  it("refuses to switch to the already-active account (409 already_active)", async () => {
    const browser = new Browser();
    const a = await signedIn(browser);
    const res = await browser.post("/api/auth/switch", { did_oc: a.did_oc });
    expect(res.status).toBe(409);
    expect(await reason(res)).toBe("already_active");
  });

  it("refuses a malformed did_oc (400 invalid_body)", async () => {
    const browser = new Browser();
    await signedIn(browser);
    const res = await browser.post("/api/auth/switch", { did_oc: "did:oc:XYZ" });
    expect(res.status).toBe(400);
    expect(await reason(res)).toBe("invalid_body");
  });
});

describe("what consumer sites can see", () => {
  it("never carries the roster_id in the JWT or any other cookie", async () => {
    const browser = new Browser();
    const a = await signedIn(browser);
    const res = await browser.signIn(newWallet(), { add: true });
    const [row] = await sessionRows(a.did_oc);
    const rosterId = row?.roster_id as string;
    const setCookie = res.headers.get("set-cookie") ?? "";
    // The session cookie, and the auth host's own host-only oc_device (issue 46: a random value, no Domain).
    const lines = setCookie.split(/,(?=\s*\w+=)/).map((c) => c.trim());
    expect(lines.every((c) => c.startsWith("oc_session=") || (c.startsWith("oc_device=") && !/Domain=/i.test(c)))).toBe(
      true,
    );
    expect(setCookie).not.toContain(rosterId);
    const token = browser.cookie as string;
    expect(JSON.stringify(decodePart(token, 0)) + JSON.stringify(decodePart(token, 1))).not.toContain(rosterId);
  });
});
