// Security review item 10: every HTML page of the auth host (enumerated from its router) carries a CSP with no
// inline script, frame-ancestors 'none', X-Frame-Options, nosniff and a referrer policy; every other answer carries
// nosniff. The sign-in page's script is a module served from this origin's static assets.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/auth/src/app";
import { SIGNIN_SCRIPT_PATH } from "../../workers/auth/src/pages/signin-page";
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

  it("the sign-in page has no inline script: its script is a module among this origin's static assets", async () => {
    const res = await SELF.fetch(`${AUTH_ORIGIN}/signin`);
    expect(/script-src ([^;]*)/.exec(res.headers.get("content-security-policy") ?? "")?.[1]).toBe("'self'");
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map(([, attributes, body]) => [attributes, body])).toEqual([
      [` type="module" src="${SIGNIN_SCRIPT_PATH}"`, ""],
    ]);
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline event handlers either
    // Served by the static-asset layer (before the worker runs), from the bundle scripts/build-assets.mjs writes.
    const script = await env.ASSETS.fetch(`${AUTH_ORIGIN}${SIGNIN_SCRIPT_PATH}`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await script.text()).toContain("/api/auth/signin");
  });
});
