// POST /api/auth/signin: the BIP-322 path, and every way a challenge can fail.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AUTH_ORIGIN, Browser } from "../helpers/browser";
import { newWallet } from "../helpers/wallet";

async function reason(res: Response): Promise<string | undefined> {
  return ((await res.json()) as { reason?: string }).reason;
}

/** A valid sign-in body for a fresh wallet and challenge; each negative test breaks one field of it. */
async function validAttempt(query?: Record<string, string>) {
  const browser = new Browser();
  const wallet = newWallet();
  const { message, nonce } = await browser.challenge(wallet.address, query);
  const body = { address: wallet.address, message, signature: wallet.sign(message), nonce };
  return { browser, wallet, body, send: (sent: unknown = body) => browser.post("/api/auth/signin", sent) };
}

async function expectRefused(response: Promise<Response>, status: number, expected: string) {
  const res = await response;
  expect(res.status).toBe(status);
  expect(await reason(res)).toBe(expected);
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

  it("signs in a P2PKH address with a legacy signmessage signature", async () => {
    const wallet = newWallet("p2pkh");
    expect(wallet.address).toMatch(/^1/);
    const res = await new Browser().signIn(wallet);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { account: { primary_btc: string } }).account.primary_btc).toBe(wallet.address);
  });

  it("refuses a replayed challenge (nonce already used)", async () => {
    const attempt = await validAttempt();
    expect((await attempt.send()).status).toBe(200);
    await expectRefused(new Browser().post("/api/auth/signin", attempt.body), 401, "challenge_unknown");
  });

  it("refuses a challenge this host never issued", async () => {
    const attempt = await validAttempt();
    const forged = attempt.body.message.replace(attempt.body.nonce, "00".repeat(16));
    const body = { ...attempt.body, message: forged, signature: attempt.wallet.sign(forged), nonce: "00".repeat(16) };
    await expectRefused(attempt.send(body), 401, "challenge_unknown");
  });

  it("refuses an expired challenge", async () => {
    const attempt = await validAttempt();
    // The same text with a window that closed: refused on time, before the store is consulted.
    const past = attempt.body.message
      .replace(/issued_at: .*/, "issued_at: 2020-01-01T00:00:00Z")
      .replace(/expires_at: .*/, "expires_at: 2020-01-01T00:05:00Z");
    await expectRefused(
      attempt.send({ ...attempt.body, message: past, signature: attempt.wallet.sign(past) }),
      401,
      "challenge_expired",
    );
  });

  it("refuses a challenge for another audience or purpose", async () => {
    for (const [query, expected] of [
      [{ audience: "https://evil.example", purpose: "login" }, "challenge_audience_mismatch"],
      [{ audience: AUTH_ORIGIN, purpose: "payment" }, "challenge_purpose_mismatch"],
      [{ purpose: "login" }, "challenge_audience_mismatch"],
    ] as const) {
      const attempt = await validAttempt(query);
      await expectRefused(attempt.send(), 401, expected);
    }
  });

  it("refuses a signature over another message", async () => {
    const attempt = await validAttempt();
    const other = await attempt.browser.challenge(attempt.wallet.address);
    const body = { ...attempt.body, signature: attempt.wallet.sign(other.message) };
    await expectRefused(attempt.send(body), 401, "challenge_sig_invalid");
  });

  it("refuses a signature by another address", async () => {
    const attempt = await validAttempt();
    const body = { ...attempt.body, signature: newWallet().sign(attempt.body.message) };
    await expectRefused(attempt.send(body), 401, "challenge_sig_invalid");
  });

  it("refuses a body address that is not the challenge's address", async () => {
    const attempt = await validAttempt();
    await expectRefused(
      attempt.send({ ...attempt.body, address: newWallet().address }),
      401,
      "challenge_address_mismatch",
    );
  });

  it("refuses a nonce that is not the message's", async () => {
    const attempt = await validAttempt();
    await expectRefused(attempt.send({ ...attempt.body, nonce: "ff".repeat(16) }), 401, "challenge_nonce_mismatch");
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
