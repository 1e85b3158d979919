// Browsers as clients (issue 32): the fleet's routes take the session cookie or a project's bearer token, so none
// answers CORS (a page of another origin can neither read them nor pass a preflight); only its OpenAPI description,
// a public document, is permissive. Every route path without parameters, swept from the router.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../workers/fleet/src/app";
import { getRoutes } from "../helpers/page-routes";

const FLEET = "http://localhost:8788";
const fromPage = (headers: Record<string, string> = {}) => ({
  origin: "https://shop.example",
  "sec-fetch-site": "cross-site",
  "cf-connecting-ip": "198.51.100.233",
  ...headers,
});

const accessControl = (headers: Headers) => [...headers].filter(([name]) => name.startsWith("access-control-"));

describe("no CORS on the fleet", () => {
  it("no CORS header on a GET, and no permissive preflight, on any route but the OpenAPI description", async () => {
    const paths = [...new Set(app.routes.map((r) => r.path))].filter(
      (p) => !p.includes(":") && !p.includes("*") && p !== "/api/openapi",
    );
    const gets = new Set(getRoutes(app));
    for (const path of paths) {
      if (gets.has(path)) {
        const res = await SELF.fetch(`${FLEET}${path}`, { headers: fromPage(), redirect: "manual" });
        expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
        await res.arrayBuffer();
      }
      const preflight = await SELF.fetch(`${FLEET}${path}`, {
        method: "OPTIONS",
        headers: fromPage({
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization",
        }),
      });
      expect(preflight.status, path).not.toBe(204);
      expect(accessControl(preflight.headers), path).toEqual([]);
      await preflight.arrayBuffer();
    }
    expect(paths).toContain("/api/projects");
  });
});
