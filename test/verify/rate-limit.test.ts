// 60 requests per minute per IP on the read endpoints; 429 rate_limited with Retry-After.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const get = (ip: string) =>
  SELF.fetch("http://localhost:8787/api/discover?id=not-an-id", { headers: { "cf-connecting-ip": ip } });

describe("verification API rate limit", () => {
  it("trips at the 61st read in a minute from one IP, and not for another IP", async () => {
    for (let i = 1; i <= 60; i++) expect((await get("203.0.113.7")).status, `request ${i}`).toBe(400);
    const limited = await get("203.0.113.7");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(await limited.json()).toEqual({ ok: false, reason: "rate_limited" });
    expect((await get("203.0.113.8")).status).toBe(400);
  });
});
