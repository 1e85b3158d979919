// Security review item 10: every HTML page of the auth host (enumerated from its router) carries a CSP with no
// inline script but by hash, frame-ancestors 'none', X-Frame-Options, nosniff and a referrer policy; every other
// answer carries nosniff. The sign-in page's inline script is allowed by its exact hash, nothing else.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inlineHash } from "../../shared/http/security-headers";
import { app } from "../../workers/auth/src/app";
import { SIGNIN_SCRIPT } from "../../workers/auth/src/pages/signin-script";
import { AUTH_ORIGIN } from "../helpers/browser";
import { getRoutes, htmlHeaderProblems } from "../helpers/page-routes";

describe("security headers on the auth host", () => {
  it("every HTML page from the router has them; every answer has nosniff", async () => {
    let pages = 0;
    for (const path of getRoutes(app)) {
      const res = await SELF.fetch(`${AUTH_ORIGIN}${path}`, { headers: { "cf-connecting-ip": "198.51.100.200" } });
      await res.arrayBuffer();
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      if ((res.headers.get("content-type") ?? "").startsWith("text/html")) {
        pages += 1;
        expect(htmlHeaderProblems(res), path).toEqual([]);
      }
    }
    expect(pages).toBeGreaterThanOrEqual(2); // /signin and /api-explorer at least
  });

  it("the sign-in page's inline script is allowed by its hash, and only it", async () => {
    const res = await SELF.fetch(`${AUTH_ORIGIN}/signin`);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain(inlineHash(SIGNIN_SCRIPT));
    expect(await res.text()).toContain(`<script>${SIGNIN_SCRIPT}</script>`);
  });
});
