// The request log (shared/http/request-log.ts, request-line.ts): the line builder on its own, then the middleware on
// a small app: the route pattern and never the path or query, the refusal's reason, the caller and project, an
// unexpected error's class without its message, the request id from cf-ray or made up, and event lines.
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../../shared/errors";
import { installErrorHandling } from "../../shared/http/errors";
import { endpointPattern, errorFields, eventLine, requestLine } from "../../shared/http/request-line";
import { logEvent, noteCaller, noteProject, REQUEST_ID_HEADER, requestLog } from "../../shared/http/request-log";

const RAY = "8f1b2c3d4e5f6a7b-LHR";

describe("requestLine", () => {
  const facts = {
    id: RAY,
    worker: "fleet" as const,
    method: "GET",
    route: "/api/tokens/:id",
    status: 200,
    startedAt: Date.UTC(2026, 4, 1, 12, 0, 0),
    endedAt: Date.UTC(2026, 4, 1, 12, 0, 0) + 37,
  };

  it("holds the fields in order, anonymous by default, and leaves out what is not known", () => {
    const line = requestLine(facts);
    expect(line).toEqual({
      t: "2026-05-01T12:00:00.000Z",
      id: RAY,
      worker: "fleet",
      method: "GET",
      route: "/api/tokens/:id",
      status: 200,
      ms: 37,
      caller: "anonymous",
    });
    expect(Object.keys(line)).toEqual(["t", "id", "worker", "method", "route", "status", "ms", "caller"]);
  });

  it("names the refusal, the caller, the project and an unexpected error's class and route", () => {
    const line = requestLine({
      ...facts,
      status: 500,
      reason: "internal_error",
      caller: "token",
      project: "proj_0123456789abcdef01234567",
      errorClass: "TypeError",
    });
    expect(line).toMatchObject({ reason: "internal_error", caller: "token", project: "proj_0123456789abcdef01234567" });
    expect(line.error).toEqual({ class: "TypeError", route: "/api/tokens/:id" });
  });
});

describe("endpointPattern", () => {
  const middleware = async (_c: unknown, next: () => Promise<void>) => next();
  const handler = (_c: unknown) => new Response("ok");

  it("names the first endpoint, never a middleware's pattern", () => {
    const routes = [
      { path: "*", handler: middleware },
      { path: "/api/*", handler: middleware },
      { path: "/api/projects/:id", handler },
      { path: "/api/projects/:id", handler: middleware },
    ];
    expect(endpointPattern(routes)).toBe("/api/projects/:id");
  });

  it("is null when only middleware matched (a 404), and sees through a sub-app's wrapper", () => {
    expect(endpointPattern([{ path: "*", handler: middleware }])).toBeNull();
    const wrapped = Object.assign(async (_c: unknown, _next: unknown) => undefined, { __COMPOSED_HANDLER: handler });
    expect(endpointPattern([{ path: "/api/x/:id", handler: wrapped }])).toBe("/api/x/:id");
  });
});

describe("errorFields and eventLine", () => {
  it("keep a class and a reason, never a message (which can quote its input)", () => {
    const parse = (() => {
      try {
        JSON.parse("eyJhbGciOi secret text");
      } catch (err) {
        return err;
      }
    })();
    expect(errorFields(parse)).toEqual({ error: "SyntaxError" });
    expect(errorFields(new AppError("mailer_error", { detail: "someone@example.com" }))).toEqual({
      error: "AppError",
      reason: "mailer_error",
    });
    class QueryFailed extends Error {}
    expect(errorFields(new QueryFailed("Failed query: … params: a@b.example"))).toEqual({ error: "QueryFailed" });
  });

  it("keeps t, worker and event over fields of the same name", () => {
    const line = eventLine("fleet", "reconciled", { expired: 2, event: "other", t: "x" }, Date.UTC(2026, 0, 1));
    expect(line).toEqual({ t: "2026-01-01T00:00:00.000Z", worker: "fleet", event: "reconciled", expired: 2 });
    expect(eventLine(undefined, "database_write_failed", {}, 0)).not.toHaveProperty("worker");
  });
});

describe("requestLog middleware", () => {
  afterEach(() => vi.restoreAllMocks());

  function app() {
    const hono = new Hono();
    hono.use(
      "*",
      requestLog({ worker: "fleet", caller: (c) => (c.req.header("x-as-token") ? { kind: "token" } : undefined) }),
    );
    hono.use("/api/*", async (c, next) => {
      if (c.req.header("x-refuse")) throw new AppError("rate_limited");
      await next();
    });
    hono.get("/api/projects/:id", (c) => {
      noteProject(c, c.req.param("id"));
      return c.json({ ok: true });
    });
    hono.get("/api/me", (c) => {
      noteCaller(c, "session");
      throw new AppError("not_authenticated");
    });
    hono.get("/api/boom/:id", () => {
      throw new TypeError(`cannot read secret ${"ock_".padEnd(68, "a")}`);
    });
    installErrorHandling(hono);
    return hono;
  }

  async function logged(path: string, init?: RequestInit) {
    const out = vi.spyOn(console, "log");
    const err = vi.spyOn(console, "error");
    const res = await app().request(path, init);
    const lines = [...out.mock.calls, ...err.mock.calls].map(([text]) => JSON.parse(String(text)));
    out.mockRestore();
    err.mockRestore();
    expect(lines).toHaveLength(1);
    return { res, line: lines[0] };
  }

  it("writes one line with the route pattern, never the path's ids or the query, and the id as a header", async () => {
    const { res, line } = await logged("/api/projects/proj_abc?token=ock_secret&email=a@b.example");
    expect(res.status).toBe(200);
    expect(line).toMatchObject({ worker: "fleet", method: "GET", route: "/api/projects/:id", status: 200 });
    expect(line.project).toBe("proj_abc");
    expect(res.headers.get(REQUEST_ID_HEADER)).toBe(line.id);
    expect(line.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(line)).not.toMatch(/token=|ock_secret|@|\?/);
  });

  it("takes the id from cf-ray, and makes one up when the header is not a ray id", async () => {
    const ray = await logged("/api/projects/p", { headers: { "cf-ray": RAY } });
    expect(ray.line.id).toBe(RAY);
    expect(ray.res.headers.get(REQUEST_ID_HEADER)).toBe(RAY);
    const forged = await logged("/api/projects/p", { headers: { "cf-ray": "ock_not-a-ray" } });
    expect(forged.line.id).not.toContain("ock_");
  });

  it("names a refusal's reason, thrown by a middleware before the route or by the route", async () => {
    const refused = await logged("/api/projects/p", { headers: { "x-refuse": "1" } });
    expect(refused.line).toMatchObject({ route: "/api/projects/:id", status: 429, reason: "rate_limited" });
    expect(refused.line).not.toHaveProperty("project");
    const me = await logged("/api/me");
    expect(me.line).toMatchObject({ route: "/api/me", status: 401, reason: "not_authenticated", caller: "session" });
  });

  it("takes the caller from the worker's callback", async () => {
    const { line } = await logged("/api/projects/p", { headers: { "x-as-token": "1" } });
    expect(line.caller).toBe("token");
  });

  it("gives a path no route answers the route null (404), and a route of another method null too (405)", async () => {
    const missing = await logged("/api/projects/p/nothing/here");
    expect(missing.line).toMatchObject({ route: null, status: 404, reason: "not_found" });
    const method = await logged("/api/projects/p", { method: "DELETE" });
    expect(method.line).toMatchObject({ route: null, status: 405, reason: "method_not_allowed" });
  });

  it("folds an unexpected error into the line: its class and route, not its message; level error", async () => {
    const err = vi.spyOn(console, "error");
    const res = await app().request("/api/boom/7");
    expect(res.status).toBe(500);
    expect(err).toHaveBeenCalledTimes(1);
    const line = JSON.parse(String(err.mock.calls[0]?.[0]));
    expect(line).toMatchObject({
      status: 500,
      reason: "internal_error",
      error: { class: "TypeError", route: "/api/boom/:id" },
    });
    expect(JSON.stringify(line)).not.toContain("ock_");
  });
});

describe("logEvent", () => {
  it("writes one JSON line, at level error when asked", () => {
    const out = vi.spyOn(console, "log");
    const err = vi.spyOn(console, "error");
    logEvent("fleet", "reconciled", { expired: 1, rearmed: 0 });
    logEvent(undefined, "rate_limiter_unavailable", { bucket: "check", error: "Error" }, "error");
    expect(JSON.parse(String(out.mock.calls[0]?.[0]))).toMatchObject({
      worker: "fleet",
      event: "reconciled",
      expired: 1,
    });
    expect(JSON.parse(String(err.mock.calls[0]?.[0]))).toMatchObject({ event: "rate_limiter_unavailable" });
    out.mockRestore();
    err.mockRestore();
  });
});
