// Browsers as clients on the public host (issue 32): the verification API it forwards to the verify worker answers
// any origin there too (errors and preflights included), while the host's own routes, which read or set the session
// cookie, answer no CORS header at all and no permissive preflight.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/auth/src/app";
import { VERIFY_PATHS } from "../../workers/auth/src/routes/verify-proxy";
import { AUTH_ORIGIN, Browser } from "../helpers/browser";
import { accessControl, expectNoCors, fromPage, PAGE } from "../helpers/cors";
import { getRoutes } from "../helpers/page-routes";
import { newWallet } from "../helpers/wallet";

/** Public documents without a cookie, permissive since before issue 32: the OpenAPI description and the JWKS. */
const PUBLIC_DOCUMENTS = ["/api/openapi", "/api/auth/jwks", "/.well-known/jwks.json"];
/** The OpenID provider's endpoints a browser app calls (issue 33): any origin, never with credentials. */
const OIDC_ENDPOINTS = ["/.well-known/openid-configuration", "/oauth/jwks", "/oauth/userinfo", "/oauth/token"];

describe("the verification API through the auth host", () => {
  it("GET /api/check and /api/discover, and POST /api/verify: readable answers, errors included", async () => {
    const answers = [
      await SELF.fetch(`${AUTH_ORIGIN}/api/check?addr=x`, { headers: fromPage() }),
      // No relays behind this host's VERIFY in the auth project: the 503 is readable too.
      await SELF.fetch(`${AUTH_ORIGIN}/api/discover?id=${"a".repeat(64)}`, { headers: fromPage() }),
      await SELF.fetch(`${AUTH_ORIGIN}/api/verify`, {
        method: "POST",
        headers: fromPage({ "content-type": "application/json" }),
        body: JSON.stringify({ addr: 1 }),
      }),
    ];
    expect(answers.map((res) => res.status)).toEqual([400, 503, 400]);
    for (const res of answers) {
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
      expect(res.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-request-id");
      expect(res.headers.get("x-request-id")).toBeTruthy();
      expect(((await res.json()) as { reason: string }).reason).toMatch(
        /^(invalid_query|relays_not_configured|invalid_body)$/,
      );
    }
  });

  it("a preflight for POST /api/verify answers 204 with its method and the content-type header", async () => {
    const res = await SELF.fetch(`${AUTH_ORIGIN}/api/verify`, {
      method: "OPTIONS",
      headers: fromPage({ "access-control-request-method": "POST", "access-control-request-headers": "content-type" }),
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toBe("POST");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toBe("content-type");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("the host's cookie routes answer no CORS", () => {
  it("GET /api/auth/me with the session cookie, from another origin: no CORS header, so a page cannot read it", async () => {
    const browser = new Browser();
    expect((await browser.signIn(newWallet())).status).toBe(200);
    const res = await browser.fetch("/api/auth/me", { headers: { origin: PAGE, "sec-fetch-site": "cross-site" } });
    expect(res.status).toBe(200);
    expect(accessControl(res.headers)).toEqual([]);
    await res.arrayBuffer();
  });

  it("a preflight on a cookie route is not permissive", async () => {
    for (const [path, method] of [
      ["/api/auth/me", "GET"],
      ["/api/auth/signin", "POST"],
      ["/api/auth/switch", "POST"],
      ["/api/auth/logout", "POST"],
      ["/api/auth/roster/signout", "POST"],
    ] as const) {
      const res = await SELF.fetch(`${AUTH_ORIGIN}${path}`, {
        method: "OPTIONS",
        headers: fromPage({
          "access-control-request-method": method,
          "access-control-request-headers": "content-type",
        }),
      });
      expect(res.status, path).not.toBe(204);
      expect(accessControl(res.headers), path).toEqual([]);
      await res.arrayBuffer();
    }
  });

  it("every other route of the host, swept from its router: no CORS header on GET, no permissive preflight", async () => {
    const paths = [...new Set(app.routes.map((r) => r.path))].filter((p) => !p.includes(":") && !p.includes("*"));
    const permissive = (p: string) =>
      VERIFY_PATHS.some((v) => v === p) || PUBLIC_DOCUMENTS.includes(p) || OIDC_ENDPOINTS.includes(p);
    const swept = paths.filter((p) => !permissive(p));
    await expectNoCors(AUTH_ORIGIN, swept, {
      gets: new Set(getRoutes(app)),
      preflight: { "access-control-request-method": "POST" },
    });
    expect(swept.length).toBeGreaterThan(20);
  });
});

describe("the OpenID provider's endpoints, for browser apps", () => {
  it("discovery, keys, userinfo and the token endpoint answer another origin, never with credentials", async () => {
    for (const path of ["/.well-known/openid-configuration", "/oauth/jwks"]) {
      const res = await SELF.fetch(`${AUTH_ORIGIN}${path}`, { headers: fromPage() });
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("access-control-allow-credentials"), path).toBeNull();
      await res.arrayBuffer();
    }
    const preflight = await SELF.fetch(`${AUTH_ORIGIN}/oauth/userinfo`, {
      method: "OPTIONS",
      headers: fromPage({ "access-control-request-method": "GET", "access-control-request-headers": "authorization" }),
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toBe("Authorization");
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
    const refused = await SELF.fetch(`${AUTH_ORIGIN}/oauth/userinfo`, {
      headers: fromPage({ authorization: "Bearer x" }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    const token = await SELF.fetch(`${AUTH_ORIGIN}/oauth/token`, {
      method: "POST",
      headers: fromPage({ "content-type": "application/x-www-form-urlencoded" }),
      body: "grant_type=authorization_code&code=x&client_id=nobody",
    });
    expect(token.status).toBeGreaterThanOrEqual(400);
    expect(token.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(token.headers.get("access-control-allow-credentials")).toBeNull();
  });
});
