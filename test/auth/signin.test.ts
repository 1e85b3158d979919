// POST /api/auth/signin: the BIP-322 path, and every way a challenge can fail.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AUTH_ORIGIN, Browser } from "../helpers/browser";
import { newWallet } from "../helpers/wallet";

async function reason(res: Response): Promise<string | undefined> {
  return ((await res.json()) as { reason?: string }).reason;
}

describe("BIP-322 sign-in", () => {
  it("signs in a new account (P2WPKH) and sets the cookie", async () => {
    const browser = new Browser();
    const wallet = newWallet("p2wpkh");
    const res = await browser.signIn(wallet);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; account: { did_oc: string; primary_btc: string } };
    expect(body.ok).toBe(true);
    expect(body.account.did_oc).toMatch(/^did:oc:[0-9a-f]{32}$/);
    expect(body.account.primary_btc).toBe(wallet.address);
    expect(browser.cookie).toBeTruthy();
    const me = await browser.me();
    expect(me.status).toBe(200);
    expect(me.body.account.did_oc).toBe(body.account.did_oc);
    expect(me.body.roster).toEqual([]);
  });

  it("signs in a P2TR address and finds the same account on the next sign-in", async () => {
    const wallet = newWallet("p2tr");
    const first = await new Browser().signIn(wallet);
    const second = await new Browser().signIn(wallet);
    expect(first.status).toBe(200);
    const a = (await first.json()) as { account: { did_oc: string } };
    const b = (await second.json()) as { account: { did_oc: string } };
    expect(b.account.did_oc).toBe(a.account.did_oc);
  });

  it("refuses a replayed challenge (nonce already used)", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    const { message, nonce } = await browser.challenge(wallet.address);
    const body = { address: wallet.address, message, signature: wallet.sign(message), nonce };
    expect((await browser.post("/api/auth/signin", body)).status).toBe(200);
    const replay = await new Browser().post("/api/auth/signin", body);
    expect(replay.status).toBe(401);
    expect(await reason(replay)).toBe("challenge_unknown");
  });

  it("refuses a challenge this host never issued", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    const { message, nonce } = await browser.challenge(wallet.address);
    const forged = message.replace(nonce, "00".repeat(16));
    const res = await browser.post("/api/auth/signin", {
      address: wallet.address,
      message: forged,
      signature: wallet.sign(forged),
      nonce: "00".repeat(16),
    });
    expect(res.status).toBe(401);
    expect(await reason(res)).toBe("challenge_unknown");
  });

  it("refuses an expired challenge", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    const { message, nonce } = await browser.challenge(wallet.address);
    // Issue a message whose window closed: the same text with past timestamps (it fails before the store).
    const past = message
      .replace(/issued_at: .*/, "issued_at: 2020-01-01T00:00:00Z")
      .replace(/expires_at: .*/, "expires_at: 2020-01-01T00:05:00Z");
    const res = await browser.post("/api/auth/signin", {
      address: wallet.address,
      message: past,
      signature: wallet.sign(past),
      nonce,
    });
    expect(res.status).toBe(401);
    expect(await reason(res)).toBe("challenge_expired");
  });

  it("refuses a challenge for another audience or purpose", async () => {
    const wallet = newWallet();
    for (const [query, expected] of [
      [{ audience: "https://evil.example", purpose: "login" }, "challenge_audience_mismatch"],
      [{ audience: AUTH_ORIGIN, purpose: "payment" }, "challenge_purpose_mismatch"],
      [{ purpose: "login" }, "challenge_audience_mismatch"],
    ] as const) {
      const browser = new Browser();
      const { message, nonce } = await browser.challenge(wallet.address, query);
      const res = await browser.post("/api/auth/signin", {
        address: wallet.address,
        message,
        signature: wallet.sign(message),
        nonce,
      });
      expect(res.status).toBe(401);
      expect(await reason(res)).toBe(expected);
    }
  });

  it("refuses a signature over another message", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    const { message, nonce } = await browser.challenge(wallet.address);
    const other = await browser.challenge(wallet.address);
    const res = await browser.post("/api/auth/signin", {
      address: wallet.address,
      message,
      signature: wallet.sign(other.message),
      nonce,
    });
    expect(res.status).toBe(401);
    expect(await reason(res)).toBe("challenge_sig_invalid");
  });

  it("refuses a signature by another address", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    const thief = newWallet();
    const { message, nonce } = await browser.challenge(wallet.address);
    const res = await browser.post("/api/auth/signin", {
      address: wallet.address,
      message,
      signature: thief.sign(message),
      nonce,
    });
    expect(res.status).toBe(401);
    expect(await reason(res)).toBe("challenge_sig_invalid");
  });

  it("refuses a body address that is not the challenge's address", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    const other = newWallet();
    const { message, nonce } = await browser.challenge(wallet.address);
    const res = await browser.post("/api/auth/signin", {
      address: other.address,
      message,
      signature: wallet.sign(message),
      nonce,
    });
    expect(res.status).toBe(401);
    expect(await reason(res)).toBe("challenge_address_mismatch");
  });

  it("refuses a nonce that is not the message's", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    const { message } = await browser.challenge(wallet.address);
    const res = await browser.post("/api/auth/signin", {
      address: wallet.address,
      message,
      signature: wallet.sign(message),
      nonce: "ff".repeat(16),
    });
    expect(res.status).toBe(401);
    expect(await reason(res)).toBe("challenge_nonce_mismatch");
  });

  it("refuses a testnet address on a mainnet host", async () => {
    const browser = new Browser();
    const wallet = newWallet("p2wpkh", "testnet");
    const challenge = await browser.fetch(`/api/challenge?addr=${wallet.address}`);
    expect(challenge.status).toBe(400);
    expect(await reason(challenge)).toBe("invalid_query");
    const res = await browser.post("/api/auth/signin", {
      address: wallet.address,
      message: "orangecheck-auth\n",
      signature: wallet.sign("x"),
      nonce: "00".repeat(16),
    });
    expect(res.status).toBe(401);
    expect(await reason(res)).toBe("challenge_network_mismatch");
  });

  it("refuses malformed messages and bodies with a reason, storing nothing", async () => {
    const browser = new Browser();
    const wallet = newWallet();
    const cases: [unknown, number, string][] = [
      [{ address: wallet.address, message: "hello", signature: "AAAA", nonce: "00" }, 400, "challenge_malformed"],
      [{ address: wallet.address, message: "x", signature: "AAAA" }, 400, "invalid_body"],
      [{ address: wallet.address, message: "x", signature: "AAAA", nonce: "1", extra: 1 }, 400, "invalid_body"],
      [{ address: 42, message: "x", signature: "AAAA", nonce: "1" }, 400, "invalid_body"],
      [[1, 2], 400, "invalid_body"],
    ];
    for (const [body, status, expected] of cases) {
      const res = await browser.post("/api/auth/signin", body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(await reason(res)).toBe(expected);
    }
    const broken = await browser.fetch("/api/auth/signin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"address": ',
    });
    expect(broken.status).toBe(400);
    expect(await reason(broken)).toBe("malformed_json");
    const plain = await browser.fetch("/api/auth/signin", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    expect(plain.status).toBe(415);
    expect(await reason(plain)).toBe("unsupported_media_type");
    const huge = await browser.post("/api/auth/signin", { address: "x".repeat(100_000) });
    expect(huge.status).toBe(413);
    expect(await reason(huge)).toBe("body_too_large");
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM account_identities WHERE value = ?")
      .bind(wallet.address)
      .first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });
});
