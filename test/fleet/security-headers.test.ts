// Security review item 10: every HTML page of the fleet (enumerated from its router) carries a CSP with no
// inline script but by hash, frame-ancestors 'none', X-Frame-Options, nosniff and a referrer policy; every other
// answer carries nosniff. The dashboard is static assets with the same headers in its _headers file.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/fleet/src/app";
import { getRoutes, htmlHeaderProblems } from "../helpers/page-routes";

describe("security headers on the fleet host", () => {
  it("every HTML page from the router has them; every answer has nosniff", async () => {
    let pages = 0;
    for (const path of getRoutes(app)) {
      const res = await SELF.fetch(`http://localhost:8788${path}`, {
        headers: { "cf-connecting-ip": "198.51.100.200" },
      });
      await res.arrayBuffer();
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      if ((res.headers.get("content-type") ?? "").startsWith("text/html")) {
        pages += 1;
        expect(htmlHeaderProblems(res), path).toEqual([]);
      }
    }
    expect(pages).toBeGreaterThanOrEqual(1); // /api-explorer at least
  });
});
