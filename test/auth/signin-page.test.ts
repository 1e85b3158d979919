// GET /signin: the page returns to `return_to` after sign-in only when the return-to policy allows it; the server
// puts the checked value in the page (data-return-to), so a foreign URL or `javascript:` never reaches the script.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const AUTH = "http://localhost:8787";

async function returnToOf(query: string): Promise<string> {
  const res = await SELF.fetch(`${AUTH}/signin${query}`);
  expect(res.status).toBe(200);
  const html = await res.text();
  const match = /<body data-return-to="([^"]*)">/.exec(html);
  if (!match) throw new Error("no data-return-to on the body");
  return match[1] as string;
}

describe("GET /signin return_to", () => {
  it("keeps a path on this host, this origin and the fleet's origin (its dashboard)", async () => {
    expect(await returnToOf("?return_to=%2Fapi%2Fauth%2Fme")).toBe("/api/auth/me");
    expect(await returnToOf(`?return_to=${encodeURIComponent(`${AUTH}/x?y=1`)}`)).toBe(`${AUTH}/x?y=1`);
    const dashboard = "http://localhost:8788/dashboard/?project=proj_1";
    expect(await returnToOf(`?return_to=${encodeURIComponent(dashboard)}`)).toBe(
      "http://localhost:8788/dashboard/?project=proj_1",
    );
  });

  it("drops javascript:, data:, other hosts, scheme-relative and backslash tricks", async () => {
    for (const value of [
      "javascript:alert(document.cookie)",
      "JaVaScRiPt:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example",
      "http://localhost:8788.evil.example/",
      "http://localhost:8789/",
    ]) {
      expect(await returnToOf(`?return_to=${encodeURIComponent(value)}`), value).toBe("");
    }
    expect(await returnToOf("")).toBe("");
  });

  it("escapes what it keeps for the attribute", async () => {
    const kept = await returnToOf(`?return_to=${encodeURIComponent("/a?q=\"><script>x</script>&b='1'")}`);
    expect(kept).not.toMatch(/[<>"]/);
    expect(kept.startsWith("/a?q=")).toBe(true);
  });
});
