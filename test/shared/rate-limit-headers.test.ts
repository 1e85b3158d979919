// The limiter's RateLimit headers go on the route's own answer. Hono's c.header() after a route has answered builds
// a whole new Response for each header; two of those a request were a third of the runtime objects a registration
// left for the garbage collector's sweep (docs/scale.md, "The latency tail").
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { installErrorHandling } from "../../shared/http/errors";
import { rateLimit } from "../../shared/rate-limit/middleware";
import { READ_RULE } from "../../shared/rate-limit/rules";

function app(answer: () => Response) {
  const seen: Response[] = [];
  const hono = new Hono<{ Bindings: { RATE_LIMITER: DurableObjectNamespace } }>();
  hono.use(async (c, next) => {
    await next();
    seen.push(c.res);
  });
  hono.get("/read", rateLimit({ bucket: "headers-test", rule: READ_RULE, failClosed: false }), () => {
    const res = answer();
    seen.push(res);
    return res;
  });
  installErrorHandling(hono);
  return { hono, seen };
}

const ip = (n: number) => ({ "cf-connecting-ip": `198.51.100.${n}` });

describe("RateLimit headers on the answer", () => {
  it("sets them on the route's own Response, not on a copy of it", async () => {
    const { hono, seen } = app(() => new Response("ok", { headers: { "content-type": "text/plain" } }));
    const res = await hono.request("/read", { headers: ip(1) }, env);
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-policy")).toBe(`${READ_RULE.capacity};w=${READ_RULE.windowMs / 1000}`);
    expect(res.headers.get("ratelimit")).toMatch(/^limit=\d+, remaining=\d+, reset=\d+$/);
    const [routes, outer] = seen;
    expect(outer).toBe(routes);
  });

  it("copies an answer whose headers cannot change once, and still sets them", async () => {
    const answer = () => Response.redirect("https://example.com/next", 302);
    expect(() => answer().headers.set("x-probe", "1")).toThrow(TypeError);
    const { hono } = app(answer);
    const Real = globalThis.Response;
    let made = 0;
    globalThis.Response = new Proxy(Real, {
      construct(target, args, newTarget) {
        // The test pool's own Durable Object plumbing makes Responses too; only the app's are counted.
        if (!new Error().stack?.includes("vitest-plugin")) made += 1;
        return Reflect.construct(target, args, newTarget);
      },
    });
    let res: Response;
    try {
      res = await hono.request("/read", { headers: ip(2) }, env);
    } finally {
      globalThis.Response = Real;
    }
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://example.com/next");
    expect(res.headers.get("ratelimit-policy")).toBe(`${READ_RULE.capacity};w=${READ_RULE.windowMs / 1000}`);
    expect(res.headers.get("ratelimit")).toMatch(/^limit=\d+/);
    expect(made).toBe(1);
  });
});
