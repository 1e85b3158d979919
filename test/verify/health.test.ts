import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("verify worker", () => {
  it("answers /api/health", async () => {
    const res = await SELF.fetch("http://localhost/api/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, service: "verify" });
  });
});
