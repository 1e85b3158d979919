// 20 requests per minute per IP on each auth route; 429 rate_limited with Retry-After (RL-01…RL-05).
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AUTH_ORIGIN, freshIp } from "../helpers/browser";

function postChallenge(ip: string, extra: Record<string, string> = {}) {
  return SELF.fetch(`${AUTH_ORIGIN}/api/challenge`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": ip, ...extra },
    body: JSON.stringify({ message: "orangecheck-auth\n", signature: "AAAA" }),
  });
}

function logout(ip: string) {
  return SELF.fetch(`${AUTH_ORIGIN}/api/auth/logout`, {
    method: "POST",
    headers: { "cf-connecting-ip": ip, "sec-fetch-site": "same-origin" },
  });
}

describe("auth rate limit", () => {
  it("trips at the 21st request in a minute from one IP, and not for another IP", async () => {
    const ip = freshIp();
    for (let i = 1; i <= 20; i++) {
      const res = await postChallenge(ip);
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers.get("ratelimit-policy")).toBe("20;w=60");
    }
    const limited = await postChallenge(ip);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ ok: false, reason: "rate_limited" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit")).toMatch(/^limit=20, remaining=0, reset=\d+$/);
    expect((await postChallenge(freshIp())).status).toBe(200);
  });

  it("counts each route separately", async () => {
    const ip = freshIp();
    for (let i = 0; i < 21; i++) await postChallenge(ip);
    expect((await postChallenge(ip)).status).toBe(429);
    expect((await logout(ip)).status).toBe(200);
  });

  it("counts bad requests too, before validation", async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) {
      const res = await SELF.fetch(`${AUTH_ORIGIN}/api/auth/switch`, {
        method: "POST",
        headers: { "cf-connecting-ip": ip, "sec-fetch-site": "same-origin", "content-type": "application/json" },
        body: "{",
      });
      expect(res.status).toBe(400);
    }
    expect((await logout(ip)).status).toBe(200);
    const res = await SELF.fetch(`${AUTH_ORIGIN}/api/auth/switch`, {
      method: "POST",
      headers: { "cf-connecting-ip": ip, "sec-fetch-site": "same-origin", "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(429);
  });

  it("ignores X-Forwarded-For and keys IPv6 clients on their /64", async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) await postChallenge(ip, { "x-forwarded-for": `10.0.0.${i}` });
    expect((await postChallenge(ip, { "x-forwarded-for": "10.9.9.9" })).status).toBe(429);
    for (let i = 0; i < 20; i++) await postChallenge(`2001:db8:1:2::${(i + 1).toString(16)}`);
    expect((await postChallenge("2001:db8:1:2:ffff:ffff:ffff:ffff")).status).toBe(429);
    expect((await postChallenge("2001:db8:1:3::1")).status).toBe(200);
  });
});
