// Browsers as clients (issue 32): the verification API's public reads answer any origin (`*`, never credentials),
// their errors included, and a preflight on exactly their paths answers 204 without spending the rate limit. A
// cached /api/check answered before the router carries the same headers. Other paths answer no CORS header.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PREFLIGHT_MAX_AGE_SECONDS } from "../../shared/http/public-cors";
import { app } from "../../workers/verify/src/app";
import { CACHED_AT, checkCacheKey } from "../../workers/verify/src/check-cache";
import type { VerifyBindings } from "../../workers/verify/src/env";
import { fixture } from "../helpers/attestations";
import { accessControl } from "../helpers/cors";

const BASE = "http://localhost:8787";
const PAGE = "https://shop.example";
let ip = 100;
function freshIp() {
  ip += 1;
  return `203.0.113.${ip}`;
}

function call(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  return SELF.fetch(`${BASE}${path}`, {
    method,
    headers: { origin: PAGE, "cf-connecting-ip": freshIp(), ...init.headers },
    body: init.body,
  });
}

const postJson = (path: string, body: string) =>
  call("POST", path, { headers: { "content-type": "application/json" }, body });

/** The CORS headers every answer of a public route carries: any origin, no credentials, the readable headers. */
function expectPublic(res: Response) {
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(",");
  for (const name of ["retry-after", "ratelimit", "ratelimit-policy", "x-cache", "x-request-id"]) {
    expect(exposed, name).toContain(name);
  }
  // `*` is the same answer for every origin: nothing for a cache to key by.
  expect(res.headers.get("vary") ?? "").not.toMatch(/origin/i);
}

const ROUTES = [
  { method: "GET", path: `/api/check?id=${"c".repeat(64)}`, status: 404, methods: "GET,HEAD" },
  { method: "GET", path: `/api/discover?id=${"d".repeat(64)}`, status: 200, methods: "GET,HEAD" },
  { method: "POST", path: "/api/verify", status: 200, methods: "POST" },
] as const;

describe("public reads answer any origin", () => {
  for (const route of ROUTES) {
    it(`${route.method} ${route.path.split("?")[0]}: a request from another origin can read the answer`, async () => {
      const a = fixture("p2wpkh");
      const res =
        route.method === "POST"
          ? await postJson(route.path, JSON.stringify({ addr: a.address, msg: a.message, sig: a.signature }))
          : await call(route.method, route.path);
      expect(res.status).toBe(route.status);
      expectPublic(res);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      await res.arrayBuffer();
    });

    it(`${route.method} ${route.path.split("?")[0]}: a preflight answers 204 with the route's methods`, async () => {
      const res = await call("OPTIONS", route.path, {
        headers: { "access-control-request-method": route.method, "access-control-request-headers": "content-type" },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
      expect(res.headers.get("access-control-allow-methods")).toBe(route.methods);
      expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toBe("content-type");
      expect(res.headers.get("access-control-max-age")).toBe(String(PREFLIGHT_MAX_AGE_SECONDS));
      expect(res.headers.get("ratelimit")).toBeNull();
      expect(await res.text()).toBe("");
    });
  }

  it("a preflight spends no token of the route's bucket: 61 of them, then the real request is admitted", async () => {
    const from = { "cf-connecting-ip": "203.0.113.250", "access-control-request-method": "GET" };
    for (let i = 1; i <= 61; i++) {
      const res = await call("OPTIONS", "/api/discover?id=x", { headers: from });
      expect(res.status, `preflight ${i}`).toBe(204);
    }
    const real = await call("GET", "/api/discover?id=x", { headers: from });
    expect(real.status).toBe(400);
    expect(real.headers.get("ratelimit")).toMatch(/^limit=60, remaining=59, /);
  });
});

describe("their error answers are readable from another origin", () => {
  it("400: invalid_query and invalid_body, with the reason", async () => {
    for (const res of [
      await call("GET", "/api/check?addr=x"),
      await call("GET", "/api/discover"),
      await postJson("/api/verify", JSON.stringify({ addr: 1 })),
    ]) {
      expect(res.status).toBe(400);
      expectPublic(res);
      expect(((await res.json()) as { reason: string }).reason).toMatch(/^invalid_(query|body)$/);
    }
    const malformed = await postJson("/api/verify", "{");
    expectPublic(malformed);
    expect(await malformed.json()).toMatchObject({ reason: "malformed_json" });
  });

  it("413: body_too_large", async () => {
    const res = await postJson("/api/verify", JSON.stringify({ addr: "x".repeat(70_000) }));
    expect(res.status).toBe(413);
    expectPublic(res);
    expect(await res.json()).toMatchObject({ reason: "body_too_large" });
  });

  it("429: rate_limited, with Retry-After exposed", async () => {
    const from = { "cf-connecting-ip": "203.0.113.251" };
    for (let i = 1; i <= 60; i++) await (await call("GET", "/api/discover?id=x", { headers: from })).arrayBuffer();
    const limited = await call("GET", "/api/discover?id=x", { headers: from });
    expect(limited.status).toBe(429);
    expectPublic(limited);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await limited.json()).toEqual({ ok: false, reason: "rate_limited" });
  });

  it("503: relays_not_configured", async () => {
    const res = await app.request(
      `${BASE}/api/check?id=${"e".repeat(64)}`,
      { headers: { origin: PAGE, "cf-connecting-ip": freshIp() } },
      { ...(env as unknown as VerifyBindings), NOSTR_RELAYS: "" },
    );
    expect(res.status).toBe(503);
    expectPublic(res);
    expect(await res.json()).toMatchObject({ reason: "relays_not_configured" });
  });
});

describe("a cached /api/check answered before the router", () => {
  it("carries the same CORS headers as the computed answer", async () => {
    const path = `/api/check?id=${crypto.randomUUID().replaceAll("-", "").repeat(2)}`;
    const first = await call("GET", path);
    expect(first.status).toBe(404);
    await first.arrayBuffer();
    const hit = await call("GET", path);
    expect(hit.headers.get("x-cache")).toBe("HIT");
    expectPublic(hit);
    expect(accessControl(hit.headers)).toEqual(accessControl(first.headers));
    await hit.arrayBuffer();
  });

  it("adds them to a copy kept from a Cache API entry stored without them (before this change)", async () => {
    const path = `/api/check?id=${crypto.randomUUID().replaceAll("-", "").repeat(2)}`;
    const stored = new Response(JSON.stringify({ ok: false, reasons: ["not_found"] }), {
      status: 404,
      headers: {
        "content-type": "application/json",
        "cache-control": "public, max-age=60",
        [CACHED_AT]: `${Date.now()}`,
      },
    });
    await caches.default.put(checkCacheKey(`${BASE}${path}`), stored);
    // The first read finds it in the Cache API and keeps its headers as stored; the second is the isolate's hit.
    const viaRouter = await call("GET", path);
    expect(viaRouter.headers.get("x-cache")).toBe("HIT");
    await viaRouter.arrayBuffer();
    const hit = await call("GET", path);
    expect(hit.headers.get("x-cache")).toBe("HIT");
    expectPublic(hit);
    expect(await hit.json()).toEqual({ ok: false, reasons: ["not_found"] });
  });
});

describe("nothing else of the verify worker answers CORS", () => {
  it("meta routes and an unknown path: no CORS header; a preflight there is not permissive", async () => {
    for (const path of ["/api/health", "/api/reasons", "/api/nothing", "/api/check/"]) {
      const res = await call("GET", path);
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
      await res.arrayBuffer();
      const preflight = await call("OPTIONS", path, { headers: { "access-control-request-method": "GET" } });
      expect(preflight.status, path).not.toBe(204);
      expect(accessControl(preflight.headers), path).toEqual([]);
      await preflight.arrayBuffer();
    }
  });
});
