// Health, the reason table (against docs/errors.md's lists), the OpenAPI description, the explorer and its
// self-served assets, 404/405, and the verification paths forwarded to the verify worker.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import contract from "../../docs/errors.md?raw";
import { AUTH_ORIGIN } from "../helpers/browser";
import { authHostReasons, compatibilityReasons } from "../helpers/contract-reasons";

describe("meta routes", () => {
  it("answers /api/health", async () => {
    const res = await SELF.fetch(`${AUTH_ORIGIN}/api/health`);
    expect(await res.json()).toMatchObject({ ok: true, service: "auth" });
  });

  it("lists at /api/reasons the promised reasons with their statuses, each with a sentence for a person", async () => {
    const res = await SELF.fetch(`${AUTH_ORIGIN}/api/reasons`);
    const body = (await res.json()) as { reasons: { reason: string; status: number; message: string }[] };
    const served = new Map(body.reasons.map(({ reason, status }) => [reason, status]));
    for (const [reason, status] of [...compatibilityReasons(contract), ...authHostReasons(contract)]) {
      expect(served.has(reason), reason).toBe(true);
      expect(served.get(reason), reason).toBe(status);
    }
    // The sign-in page's own reasons are there too, each with a sentence that is not the code.
    for (const reason of ["challenge_sig_invalid", "email_code_invalid", "oauth_access_denied", "roster_full"]) {
      const entry = body.reasons.find((e) => e.reason === reason);
      expect(entry?.message, reason).toMatch(/^[A-Z][^_]+\.$/);
    }
  });

  it("serves the OpenAPI 3.1 description with permissive CORS, cached 5 minutes", async () => {
    const res = await SELF.fetch(`${AUTH_ORIGIN}/api/openapi`);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    for (const [path, method] of [
      ["/api/challenge", "get"],
      ["/api/challenge", "post"],
      ["/api/auth/signin", "post"],
      ["/api/auth/me", "get"],
      ["/api/auth/switch", "post"],
      ["/api/auth/logout", "post"],
      ["/api/auth/account", "patch"],
      ["/api/auth/jwks", "get"],
      ["/.well-known/jwks.json", "get"],
      ["/api/health", "get"],
      ["/api/reasons", "get"],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
  });

  it("serves the interactive explorer and its assets from the worker itself", async () => {
    const page = await SELF.fetch(`${AUTH_ORIGIN}/api-explorer`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const scripts = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(scripts.length).toBe(4); // Swagger UI's stylesheet and script, our colour overrides, the init script
    // Asset paths are answered by the static-asset layer before the worker runs; the test runner's SELF reaches
    // only the worker, so the files are fetched through the same ASSETS binding that layer serves from.
    for (const asset of scripts) {
      const res = await env.ASSETS.fetch(`${AUTH_ORIGIN}${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.text()).length).toBeGreaterThan(20);
    }
  });

  it("answers unknown paths with 404 not_found and wrong methods with 405 and Allow", async () => {
    const missing = await SELF.fetch(`${AUTH_ORIGIN}/api/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ ok: false, reason: "not_found" });
    const wrong = await SELF.fetch(`${AUTH_ORIGIN}/api/auth/me`, { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD");
  });

  it("forwards /api/check, /api/verify and /api/discover to the verify worker", async () => {
    // The verify worker answers (here: its own validation of a malformed address).
    const res = await SELF.fetch(`${AUTH_ORIGIN}/api/check?addr=x`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false, reason: "invalid_query" });
    const discover = await SELF.fetch(`${AUTH_ORIGIN}/api/discover`);
    expect(((await discover.json()) as { reason: string }).reason).toBe("invalid_query");
  });
});
