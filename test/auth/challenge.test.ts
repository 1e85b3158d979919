// GET/POST /api/challenge: the orangecheck-auth message, single-use nonces, TTL, audience and purpose.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { requestChallenge, submitChallenge } from "../../shared/kit/challenge";
import { AUTH_ORIGIN, Browser, freshIp } from "../helpers/browser";
import { newWallet } from "../helpers/wallet";

describe("GET /api/challenge", () => {
  it("issues the orangecheck-auth message with a 32-hex nonce and an ISO expiry with milliseconds", async () => {
    const wallet = newWallet();
    const before = Date.now();
    const res = await new Browser().fetch(
      `/api/challenge?addr=${wallet.address}&audience=${AUTH_ORIGIN}&purpose=login`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const { message, nonce, expiresAt } = (await res.json()) as Record<string, string>;
    expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const lines = (message as string).split("\n");
    expect(lines).toEqual([
      "orangecheck-auth",
      `address: ${wallet.address}`,
      `nonce: ${nonce}`,
      expect.stringMatching(/^issued_at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      expect.stringMatching(/^expires_at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      "ack: I authorize this session under the OrangeCheck auth challenge.",
      `audience: ${AUTH_ORIGIN}`,
      "purpose: login",
      "",
    ]);
    // Five minutes from the issue time the message states (whole seconds there, milliseconds in expiresAt); the
    // worker's clock, not the test's, so a few milliseconds of skew between the two cannot fail this.
    const issuedAt = Date.parse((lines[3] as string).slice("issued_at: ".length));
    const ttl = Date.parse(expiresAt as string) - issuedAt;
    expect(ttl).toBeGreaterThanOrEqual(300_000);
    expect(ttl).toBeLessThan(301_000);
    expect(Math.abs(issuedAt - before)).toBeLessThan(5_000);
  });

  it("refuses bad addresses, TTLs outside 30-600 s, multi-line values and unknown parameters", async () => {
    const wallet = newWallet();
    for (const query of [
      "addr=bc1qnotanaddress",
      "",
      `addr=${wallet.address}&ttl=5`,
      `addr=${wallet.address}&ttl=601`,
      `addr=${wallet.address}&audience=a%0Apurpose:%20x`,
      `addr=${wallet.address}&purpose=Log In`,
      `addr=${wallet.address}&foo=1`,
    ]) {
      const res = await new Browser().fetch(`/api/challenge?${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { reason: string }).reason).toBe("invalid_query");
    }
  });
});

describe("POST /api/challenge", () => {
  async function issued(query: Record<string, string> = { audience: "https://app.example", purpose: "login" }) {
    const wallet = newWallet("p2tr");
    const browser = new Browser();
    const challenge = await browser.challenge(wallet.address, query);
    return { browser, wallet, ...challenge, signature: wallet.sign(challenge.message) };
  }

  it("verifies a signed challenge once: ok with the address, then invalid_challenge on replay", async () => {
    const { browser, wallet, message, nonce, signature, expiresAt } = await issued();
    const body = {
      message,
      signature,
      expectedNonce: nonce,
      expectedAudience: "https://app.example",
      expectedPurpose: "login",
    };
    const first = await browser.post("/api/challenge", body);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({
      ok: true,
      address: wallet.address,
      nonce,
      expiresAt,
      audience: "https://app.example",
      purpose: "login",
    });
    const replay = await browser.post("/api/challenge", body);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ ok: false, reason: "invalid_challenge", code: "nonce_unknown" });
  });

  it("answers invalid_challenge with the failing check as code", async () => {
    const { browser, message, signature, nonce } = await issued();
    const other = await issued();
    const cases: [Record<string, unknown>, string][] = [
      [{ message, signature, expectedAudience: "https://evil.example" }, "audience_mismatch"],
      [{ message, signature, expectedPurpose: "payment" }, "purpose_mismatch"],
      [{ message, signature, expectedNonce: "ab".repeat(16) }, "nonce_mismatch"],
      [{ message, signature: other.signature }, "sig_invalid"],
      [{ message: `${message}extra: line\n`, signature }, "sig_invalid"],
      [{ message: "hello", signature }, "malformed"],
      [{ message: message.replace(/expires_at: .*/, "expires_at: 2020-01-01T00:00:00Z"), signature }, "malformed"],
    ];
    for (const [body, code] of cases) {
      const res = await browser.post("/api/challenge", body);
      expect(await res.json(), code).toEqual({ ok: false, reason: "invalid_challenge", code });
    }
    // None of those consumed the nonce: the real signature still verifies once.
    const ok = await browser.post("/api/challenge", { message, signature, expectedNonce: nonce });
    expect(((await ok.json()) as { ok: boolean }).ok).toBe(true);
  });

  it("answers 400 for a body of the wrong shape", async () => {
    const browser = new Browser();
    for (const body of [{}, { message: 1, signature: "x" }, { message: "x", signature: "y", nonce: "z" }]) {
      const res = await browser.post("/api/challenge", body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { reason: string }).reason).toBe("invalid_body");
    }
  });
});

describe("the kit's challenge client against this host (issue 16, item 5)", () => {
  it("reads this host's ISO expiresAt as unix ms and ISO, verifies once, then reports the replay", async () => {
    const ip = freshIp();
    const options = {
      authOrigin: AUTH_ORIGIN,
      fetch: ((input, init) => {
        const request = new Request(input, init);
        request.headers.set("cf-connecting-ip", ip);
        return SELF.fetch(request);
      }) satisfies typeof fetch,
    };
    const wallet = newWallet();
    const before = Date.now();
    const issued = await requestChallenge(options, { addr: wallet.address, audience: AUTH_ORIGIN, purpose: "login" });
    if (!issued.ok) throw new Error(issued.detail);
    expect(issued.challenge.expiresAt - before).toBeGreaterThan(290_000);
    expect(new Date(issued.challenge.expiresAt).toISOString()).toBe(issued.challenge.expiresAtIso);
    const signed = {
      message: issued.challenge.message,
      signature: wallet.sign(issued.challenge.message),
      expectedNonce: issued.challenge.nonce,
      expectedPurpose: "login",
    };
    expect(await submitChallenge(options, signed)).toEqual({
      ok: true,
      verified: {
        address: wallet.address,
        nonce: issued.challenge.nonce,
        expiresAt: issued.challenge.expiresAt,
        audience: AUTH_ORIGIN,
        purpose: "login",
      },
    });
    expect(await submitChallenge(options, signed)).toMatchObject({
      ok: false,
      reason: "invalid_challenge",
      code: "nonce_unknown",
    });
  });
});
