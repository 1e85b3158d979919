import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("fleet worker", () => {
  it("answers /api/health", async () => {
    const res = await SELF.fetch("http://localhost:8788/api/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, service: "fleet" });
  });

  it("answers an unknown route with the error envelope", async () => {
    const res = await SELF.fetch("http://localhost:8788/api/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ ok: false, reason: "not_found" });
  });
});
