// The verification API's JSON body goes through the same I-JSON gate (security review items 7 and 14).
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("POST /api/verify bodies", () => {
  it("attack: a repeated name or a lone surrogate is refused before the verifier runs", async () => {
    for (const [body, reason] of [
      ['{"addr":"bc1qa","addr":"bc1qb","msg":"m","sig":"s"}', "duplicate_json_key"],
      ['{"addr":"bc1qa","msg":"\\udc00","sig":"s"}', "json_lone_surrogate"],
    ]) {
      const res = await SELF.fetch("http://localhost:8787/api/verify", {
        method: "POST",
        headers: { "content-type": "application/json", "cf-connecting-ip": "198.51.100.77" },
        body,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { reason: string }).reason).toBe(reason);
    }
  });
});
