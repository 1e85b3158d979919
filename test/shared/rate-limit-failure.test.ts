// RL-07: when the limiter's Durable Object fails, auth routes fail closed and read routes fail open.
// The fault is injected at the platform binding (a namespace whose stub throws); the middleware is the real one.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { installErrorHandling } from "../../shared/http/errors";
import { rateLimit } from "../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../shared/rate-limit/rules";

const brokenNamespace = {
  idFromName: () => ({}),
  get: () => ({
    lease: () => Promise.reject(Object.assign(new Error("Durable Object is overloaded"), { overloaded: true })),
  }),
};

function app() {
  const hono = new Hono<{ Bindings: { RATE_LIMITER: never } }>();
  hono.post("/auth", rateLimit({ bucket: "auth", rule: AUTH_RULE, failClosed: true }), (c) => c.text("ok"));
  hono.get("/read", rateLimit({ bucket: "read", rule: READ_RULE, failClosed: false }), (c) => c.text("ok"));
  installErrorHandling(hono);
  return hono;
}

describe("rate limiter failure", () => {
  it("refuses auth requests (429, Retry-After) and serves reads", async () => {
    const env = { RATE_LIMITER: brokenNamespace as never };
    const auth = await app().request("/auth", { method: "POST" }, env);
    expect(auth.status).toBe(429);
    expect(auth.headers.get("retry-after")).toBe("1");
    expect(await auth.json()).toEqual({ ok: false, reason: "rate_limited" });
    const read = await app().request("/read", {}, env);
    expect(read.status).toBe(200);
  });
});
